import type { BrowserSettings } from '../config/task.js';
import type { Sandbox } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';

/** Starts Xvfb, the window manager, VNC/noVNC, the task's sites and the env server (GUI-CONTRACT.md). */
export const START_BROWSER_ENV = '/opt/openforge/bin/start-browser-env';
/** The env server inside a browser container; harnesses reach it here. */
export const ENV_SERVER_URL = 'http://127.0.0.1:7000';
export const LIVE_VIEW_PORT = 6080;

const LOG_TAIL_CHARS = 3000;

/** noVNC's page for a container, view-only and connecting at once. */
export function liveViewUrl(address: string): string {
  return `http://${address}:${LIVE_VIEW_PORT}/vnc.html?autoconnect=1&view_only=1`;
}

/**
 * Brings a browser task's environment up inside its container and opens the episode: runs the start
 * script, then POST /reset with the task's start_url and viewport. Every failure is an
 * `environment_setup` error carrying the tail of what the script or the env server said.
 */
export async function startBrowserEnvironment(box: Sandbox, settings: BrowserSettings): Promise<{ url: string; title: string }> {
  const timeoutSec = settings.setup_timeout_sec;
  const started = await box.exec([START_BROWSER_ENV], { timeoutSec });
  if (started.timedOut || started.exitCode !== 0) {
    const why = started.timedOut ? `did not finish within ${timeoutSec} s` : `exited with code ${started.exitCode}`;
    throw new RolloutError('environment_setup', `${START_BROWSER_ENV} ${why}:\n${tail(started.stdout + started.stderr)}`);
  }
  const body = JSON.stringify({ ...(settings.start_url ? { start_url: settings.start_url } : {}), viewport: settings.viewport });
  // The observation carries a screenshot: keep it in a file and print only what the orchestrator needs.
  const script = [
    'set -u',
    'out=$(mktemp)',
    `code=$(curl -sS -m ${Math.ceil(timeoutSec)} -o "$out" -w '%{http_code}' -X POST ${ENV_SERVER_URL}/reset -H 'content-type: application/json' --data-binary @-) || { echo "curl failed"; exit 1; }`,
    'if [ "$code" != 200 ]; then echo "HTTP $code"; head -c 2000 "$out"; exit 1; fi',
    `jq -c '{url, title, last_action_error}' "$out"`,
  ].join('\n');
  const reset = await box.exec(['bash', '-c', script], { stdin: body, timeoutSec });
  if (reset.timedOut || reset.exitCode !== 0) {
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset failed${reset.timedOut ? ` (no answer within ${timeoutSec} s)` : ''}: ${tail(reset.stdout + reset.stderr)}`);
  }
  let page: { url?: string; title?: string; last_action_error?: { code?: string; message?: string } | null };
  try {
    page = JSON.parse(reset.stdout);
  } catch {
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset answered something that is not an observation: ${tail(reset.stdout)}`);
  }
  if (page.last_action_error) {
    const e = page.last_action_error;
    throw new RolloutError('environment_setup', `the episode could not open ${settings.start_url ?? 'its start page'}: ${e.code ?? 'error'}: ${e.message ?? ''}`);
  }
  return { url: page.url ?? '', title: page.title ?? '' };
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > LOG_TAIL_CHARS ? `…${trimmed.slice(-LOG_TAIL_CHARS)}` : trimmed || '(no output)';
}
