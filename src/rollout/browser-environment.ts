import { randomBytes } from 'node:crypto';
import { browserSettings, desktopSettings, type BrowserSettings, type Task } from '../config/task.js';
import type { Sandbox } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';

/** Starts Xvfb, the window manager, VNC/noVNC, the task's sites and the env server (docs/browser.md). */
export const START_BROWSER_ENV = '/opt/openforge/bin/start-browser-env';
/** The env server inside a browser container; harnesses reach it here. */
export const ENV_SERVER_URL = 'http://127.0.0.1:7000';
export const LIVE_VIEW_PORT = 6080;

const LOG_TAIL_CHARS = 3000;
const RESET_ATTEMPTS = 3;
const START_ATTEMPTS = 2;
/** How many setup_timeout_sec the whole environment phase may take: two starts and the first reset. */
export const ENVIRONMENT_PHASE_DEADLINES = START_ATTEMPTS + 1;

/** The environment phase's whole deadline for a task: 0 for workspace tasks, which have none. */
export function environmentPhaseSec(task: Task): number {
  const gui = browserSettings(task) ?? desktopSettings(task);
  return gui ? gui.setup_timeout_sec * ENVIRONMENT_PHASE_DEADLINES : 0;
}
/** Where start-browser-env sends each background service's output. */
const SERVICE_LOGS = '/logs/services';

/** What keeps a rollout's environment its own: the env server's token (its agent gets it too) and the VNC password. */
export interface EnvironmentSecrets {
  envToken: string;
  vncPassword: string;
}

export function newEnvironmentSecrets(): EnvironmentSecrets {
  // x11vnc reads at most 8 characters of a password
  return { envToken: randomBytes(24).toString('base64url'), vncPassword: randomBytes(6).toString('base64url') };
}

/** noVNC's page for a container, view-only, connecting at once with the rollout's VNC password. */
export function liveViewUrl(address: string, vncPassword: string): string {
  return `http://${address}:${LIVE_VIEW_PORT}/vnc.html?autoconnect=1&view_only=1&password=${encodeURIComponent(vncPassword)}`;
}

/**
 * Brings a browser task's environment up inside its container and opens the episode: runs the start
 * script, then POST /reset with the task's start_url and viewport. Every failure is an
 * `environment_setup` error carrying the tail of what the script or the env server said.
 */
export async function startBrowserEnvironment(box: Sandbox, settings: BrowserSettings, secrets: EnvironmentSecrets): Promise<{ url: string; title: string }> {
  const timeoutSec = settings.setup_timeout_sec;
  const env = { OPENFORGE_ENV_TOKEN: secrets.envToken, OPENFORGE_VNC_PASSWORD: secrets.vncPassword };
  // The script is idempotent: a second run restarts only what died (e.g. an env server whose Chromium
  // missed Playwright's launch deadline on a loaded machine).
  for (let attempt = 1; ; attempt++) {
    const started = await box.exec([START_BROWSER_ENV], { timeoutSec, env });
    if (!started.timedOut && started.exitCode === 0) break;
    if (attempt < START_ATTEMPTS) continue;
    const why = started.timedOut ? `did not finish within ${timeoutSec} s` : `exited with code ${started.exitCode}`;
    const logs = await serviceLogs(box);
    throw new RolloutError('environment_setup', `${START_BROWSER_ENV} ${why} (${attempt} attempts):\n${tail(`${started.stdout}${started.stderr}\n${logs}`)}`);
  }
  const deadline = Date.now() + timeoutSec * 1000;
  // start-browser-env waits for the env server, not for the task's sites: wait until the start page answers.
  if (settings.start_url && /^https?:/.test(settings.start_url)) await waitForUrl(box, settings.start_url, timeoutSec);
  // A cold browser under load may miss the env server's navigation deadline once: try the reset again.
  for (let attempt = 1; ; attempt++) {
    const page = await reset(box, settings, Math.max(10, (deadline - Date.now()) / 1000), env);
    if (!page.last_action_error) return { url: page.url ?? '', title: page.title ?? '' };
    if (attempt >= RESET_ATTEMPTS || Date.now() > deadline) {
      const e = page.last_action_error;
      throw new RolloutError(
        'environment_setup',
        `the episode could not open ${settings.start_url ?? 'its start page'} (${attempt} attempts): ${e.code ?? 'error'}: ${e.message ?? ''}`,
      );
    }
  }
}

interface ResetAnswer {
  url?: string;
  title?: string;
  last_action_error?: { code?: string; message?: string } | null;
}

async function reset(box: Sandbox, settings: BrowserSettings, timeoutSec: number, env: Record<string, string>): Promise<ResetAnswer> {
  const body = JSON.stringify({ ...(settings.start_url ? { start_url: settings.start_url } : {}), viewport: settings.viewport });
  // The observation carries a screenshot: keep it in a file and print only what the orchestrator needs.
  const script = [
    'set -u',
    'out=$(mktemp)',
    `code=$(curl -sS -m ${Math.ceil(timeoutSec)} -o "$out" -w '%{http_code}' -X POST ${ENV_SERVER_URL}/reset -H 'content-type: application/json' -H "authorization: Bearer $OPENFORGE_ENV_TOKEN" --data-binary @-) || { echo "curl failed"; exit 1; }`,
    'if [ "$code" != 200 ]; then echo "HTTP $code"; head -c 2000 "$out"; exit 1; fi',
    `jq -c '{url, title, last_action_error}' "$out"`,
  ].join('\n');
  const res = await box.exec(['bash', '-c', script], { stdin: body, timeoutSec, env });
  if (res.timedOut || res.exitCode !== 0) {
    throw new RolloutError(
      'environment_setup',
      `POST ${ENV_SERVER_URL}/reset failed${res.timedOut ? ` (no answer within ${Math.ceil(timeoutSec)} s)` : ''}: ${tail(res.stdout + res.stderr)}`,
    );
  }
  try {
    return JSON.parse(res.stdout) as ResetAnswer;
  } catch {
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset answered something that is not an observation: ${tail(res.stdout)}`);
  }
}

/** Polls a URL from inside the sandbox until it answers with any HTTP status. */
async function waitForUrl(box: Sandbox, url: string, timeoutSec: number): Promise<void> {
  const script = `for i in $(seq 1 ${Math.ceil(timeoutSec * 2)}); do curl -s -o /dev/null -m 5 "$1" && exit 0; sleep 0.5; done; exit 1`;
  const res = await box.exec(['bash', '-c', script, 'wait', url], { timeoutSec });
  if (res.exitCode !== 0) {
    const logs = await serviceLogs(box);
    throw new RolloutError(
      'environment_setup',
      `the task's start page ${url} did not answer within ${timeoutSec} s (is its site in /opt/openforge/services.d?):\n${tail(logs)}`,
    );
  }
}

/** The last lines of every service's log (display, VNC, sites, env server), for a start that hung. */
export async function serviceLogs(box: Sandbox): Promise<string> {
  const res = await box.exec(['sh', '-c', `for f in ${SERVICE_LOGS}/*.log; do echo "== $f"; tail -n 8 "$f"; done`], { timeoutSec: 15 }).catch(() => undefined);
  return res?.stdout ?? '';
}

export function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > LOG_TAIL_CHARS ? `…${trimmed.slice(-LOG_TAIL_CHARS)}` : trimmed || '(no output)';
}
