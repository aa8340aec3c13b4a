import type { BrowserSettings } from '../config/task.js';
import type { Sandbox } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';
import { postReset, serviceLogs, startEnvironment, tail, type EnvironmentSecrets } from './gui-environment.js';

/** Starts Xvfb, the window manager, VNC/noVNC, the task's sites and the env server (docs/browser.md). */
export const START_BROWSER_ENV = '/opt/openforge/bin/start-browser-env';

const RESET_ATTEMPTS = 3;

/**
 * Brings a browser task's environment up inside its container and opens the episode: runs the start
 * script, then POST /reset with the task's start_url and viewport. Every failure is an
 * `environment_setup` error carrying the tail of what the script or the env server said.
 */
export async function startBrowserEnvironment(box: Sandbox, settings: BrowserSettings, secrets: EnvironmentSecrets): Promise<{ url: string; title: string }> {
  const timeoutSec = settings.setup_timeout_sec;
  const env = { OPENFORGE_ENV_TOKEN: secrets.envToken, OPENFORGE_VNC_PASSWORD: secrets.vncPassword };
  // A second start restarts only what died (e.g. an env server whose Chromium missed Playwright's launch
  // deadline on a loaded machine).
  await startEnvironment(box, START_BROWSER_ENV, timeoutSec, env);
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

function reset(box: Sandbox, settings: BrowserSettings, timeoutSec: number, env: Record<string, string>) {
  const body = JSON.stringify({ ...(settings.start_url ? { start_url: settings.start_url } : {}), viewport: settings.viewport });
  return postReset(box, { body, fields: ['url', 'title', 'last_action_error'], timeoutSec }, env);
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
