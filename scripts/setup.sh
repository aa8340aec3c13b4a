#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine to a working OpenForge (`npm run setup`): npm deps, a running
# Docker engine, the build, and the images (base from debootstrap, workspace, browser, desktop, the example suites' task
# images, and the real harness layers). Idempotent: on a machine that has all of it, it only checks.
#   --no-harnesses      skip the real harness layers (about 3 GB, built from npm on first use otherwise)
#   --harnesses=a,b     build only these harness layers (qwen-code, openclaw, claude-code, codex, opencode)
#   --no-runsc          do not install gVisor (Debian's runsc) nor register it with dockerd as the runtime "runsc"
#                       (rollouts run under it with `sandbox: { runtime: runsc }` in run.yaml)
# Builds that fetch over https trust the system's trust store (OPENFORGE_EXTRA_CA names another bundle).
set -euo pipefail
cd "$(dirname "$0")/.."

harnesses="all"
runsc=1
for arg in "$@"; do
  case "$arg" in
    --no-runsc) runsc=0 ;;
    --no-harnesses) harnesses="" ;;
    --harnesses) harnesses="all" ;;
    --harnesses=*) harnesses="${arg#--harnesses=}" ;;
    *) printf 'setup: unknown option %s (known: --no-harnesses, --harnesses=a,b, --no-runsc)\n' "$arg" >&2; exit 2 ;;
  esac
done

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# 1. npm dependencies (sqlite3 builds its addon from source on install, about a minute).
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.openforge-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
  log "installing npm dependencies"
  npm ci --no-audit --no-fund
  echo "$lock_hash" > node_modules/.openforge-lock-hash
fi

# 2. Docker engine: installed from Debian (docker.io) if missing, started if not running.
if ! docker info >/dev/null 2>&1; then
  if ! command -v dockerd >/dev/null 2>&1; then
    log "installing the Docker engine (docker.io)"
    apt_install docker.io
  fi
  if ! docker info >/dev/null 2>&1; then
    log "starting dockerd"
    if command -v systemctl >/dev/null 2>&1 && systemctl is-system-running >/dev/null 2>&1; then
      as_root systemctl start docker
    else
      as_root sh -c 'nohup dockerd >/var/log/openforge-dockerd.log 2>&1 &'
    fi
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { log "dockerd did not come up; see /var/log/openforge-dockerd.log"; exit 1; }
  fi
fi

# 3a. gVisor as the runtime "runsc": the container's processes then talk to a user-space kernel, not the host's.
#     It uses the network namespace Docker made for the container (--network=host inside it): its own network
#     stack cannot start in every VM, and the namespace is what proxy-only isolates.
if [ "$runsc" = 1 ] && ! docker info --format '{{json .Runtimes}}' | grep -q '"runsc"'; then
  command -v runsc >/dev/null 2>&1 || { log "installing gVisor (runsc)"; apt_install runsc; }
  log "registering runsc with dockerd"
  as_root node -e '
    const fs = require("fs"); const file = "/etc/docker/daemon.json";
    const conf = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8") || "{}") : {};
    conf.runtimes = { ...conf.runtimes, runsc: { path: process.argv[1], runtimeArgs: ["--network=host"] } };
    fs.mkdirSync("/etc/docker", { recursive: true }); fs.writeFileSync(file, JSON.stringify(conf, null, 2) + "\n");' "$(command -v runsc)"
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet docker 2>/dev/null; then as_root systemctl reload docker
  else as_root kill -HUP "$(pgrep -x dockerd)"; fi
  for _ in $(seq 1 30); do docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' && break; sleep 1; done
  docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' || log "runsc did not register with dockerd (see /etc/docker/daemon.json); runs that ask for it will say so"
fi

# 3. debootstrap builds the base image (no registry is needed: nothing is pulled).
command -v debootstrap >/dev/null 2>&1 || { log "installing debootstrap"; apt_install debootstrap; }
# 4. Debian's Chromium on the host drives the web inspector's end-to-end tests (playwright-core
#    with executablePath; no browser download). Browser rollouts use the one in the browser image.
command -v chromium >/dev/null 2>&1 || { log "installing chromium (inspector tests)"; apt_install chromium; }
/usr/bin/python3 -c "import jinja2" >/dev/null 2>&1 || { log "installing python3-jinja2 (the reference the model families are checked against)"; apt_install python3-jinja2; }

# 5. Build, then the images (tagged by content hash: unchanged inputs are reused from the engine's cache).
log "building"
npm run build --silent

log "building images"
node bin/openforge.js images node --quiet
node bin/openforge.js images build --quiet --tasks envs/claw-basic
log "building the browser image and browser-basic task images"
node bin/openforge.js images browser --quiet --tasks envs/browser-basic
log "building the desktop image and desktop-basic task images"
node bin/openforge.js images desktop --quiet --tasks envs/desktop-basic
log "building the Claw-Eval image (a second debootstrap: Debian trixie)"
node bin/openforge.js images claw-eval --quiet
if [ -n "$harnesses" ]; then
  log "building harness layers (${harnesses})"
  if [ "$harnesses" = "all" ]; then node bin/openforge.js images harness --quiet
  else node bin/openforge.js images harness --quiet ${harnesses//,/ }; fi
fi
log "ready: npm test · npx openforge run envs/claw-basic/run.yaml"
