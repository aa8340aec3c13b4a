#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine to a working OpenForge: npm deps, a running Docker
# engine, the build, and the images (base from debootstrap, workspace, claw-basic task images).
# Idempotent: on a machine that has all of it, it only checks and finishes in seconds.
#   --harnesses[=a,b]  also build the real harness layers (all, or the named ones: qwen-code, openclaw,
#                      claude-code, codex) from npm; about 3 GB, cached by content hash like every image.
set -euo pipefail
cd "$(dirname "$0")/.."

harnesses=""
for arg in "$@"; do
  case "$arg" in
    --harnesses) harnesses="all" ;;
    --harnesses=*) harnesses="${arg#--harnesses=}" ;;
    *) printf 'setup: unknown option %s (known: --harnesses[=a,b])\n' "$arg" >&2; exit 2 ;;
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

# 3. debootstrap builds the base image (no registry is needed: nothing is pulled).
command -v debootstrap >/dev/null 2>&1 || { log "installing debootstrap"; apt_install debootstrap; }
# 4. Debian's Chromium on the host drives the web inspector's end-to-end tests (playwright-core
#    with executablePath; no browser download). Browser rollouts use the one in the browser image.
command -v chromium >/dev/null 2>&1 || { log "installing chromium (inspector tests)"; apt_install chromium; }

# 5. Build, then the images (tagged by content hash: unchanged inputs are reused from the engine's cache).
log "building"
npm run build --silent

# The node image, the browser image and harness layers fetch from npm over https inside the build, which
# needs this machine's trust store when a TLS-inspecting proxy sits in between, so the system bundle is
# passed in (used by the fetching stage only: it is not part of these images' tags). The workspace image is
# built without it: a bundle given there is installed in the image for tasks, and changes its tag.
fetch_ca="${OPENFORGE_EXTRA_CA:-}"
if [ -z "$fetch_ca" ]; then
  for ca in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
    if [ -s "$ca" ]; then fetch_ca="$ca"; break; fi
  done
fi
log "building images${fetch_ca:+ (fetching with CA bundle $fetch_ca)}"
OPENFORGE_EXTRA_CA="$fetch_ca" node bin/openforge.js images node --quiet
node bin/openforge.js images build --quiet --tasks envs/claw-basic

# 6. The browser image, browser task images and harness layers.
export OPENFORGE_EXTRA_CA="$fetch_ca"
log "building the browser image and browser-basic task images"
node bin/openforge.js images browser --quiet --tasks envs/browser-basic
if [ -n "$harnesses" ]; then
  log "building harness layers (${harnesses})"
  if [ "$harnesses" = "all" ]; then node bin/openforge.js images harness --quiet
  else node bin/openforge.js images harness --quiet ${harnesses//,/ }; fi
fi
log "ready: npm test · npx openforge run envs/claw-basic/run.yaml"
