import type { DesktopSettings } from '../config/task.js';
import type { Sandbox } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';
import { ENV_SERVER_URL, serviceLogs, tail, type EnvironmentSecrets } from './browser-environment.js';

/** Starts Xvfb, the session bus and AT-SPI, the window manager and panel, VNC/noVNC and the desktop env server (docs/desktop.md). */
export const START_DESKTOP_ENV = '/opt/openforge/bin/start-desktop-env';
const START_ATTEMPTS = 2;

/**
 * Brings a desktop task's environment up inside its container and opens the episode: runs the start script
 * (the screen at the task's size), then POST /reset with the apps to launch and the window to wait for.
 * Every failure is an `environment_setup` error carrying the tail of what the script or the env server said.
 */
export async function startDesktopEnvironment(box: Sandbox, settings: DesktopSettings, secrets: EnvironmentSecrets): Promise<{ title: string }> {
  const timeoutSec = settings.setup_timeout_sec;
  const env = {
    OPENFORGE_ENV_TOKEN: secrets.envToken,
    OPENFORGE_VNC_PASSWORD: secrets.vncPassword,
    OPENFORGE_SCREEN: `${settings.screen.width}x${settings.screen.height}x24`,
  };
  for (let attempt = 1; ; attempt++) {
    const started = await box.exec([START_DESKTOP_ENV], { timeoutSec, env });
    if (!started.timedOut && started.exitCode === 0) break;
    if (attempt < START_ATTEMPTS) continue;
    const why = started.timedOut ? `did not finish within ${timeoutSec} s` : `exited with code ${started.exitCode}`;
    const logs = await serviceLogs(box);
    throw new RolloutError('environment_setup', `${START_DESKTOP_ENV} ${why} (${attempt} attempts):\n${tail(`${started.stdout}${started.stderr}\n${logs}`)}`);
  }
  const body = JSON.stringify({
    launch: settings.launch,
    ...(settings.wait_for_window ? { wait_for_window: settings.wait_for_window } : {}),
    timeout_ms: Math.round(timeoutSec * 1000 * 0.8),
  });
  const script = [
    'set -u',
    'out=$(mktemp)',
    `code=$(curl -sS -m ${Math.ceil(timeoutSec)} -o "$out" -w '%{http_code}' -X POST ${ENV_SERVER_URL}/reset -H 'content-type: application/json' -H "authorization: Bearer $OPENFORGE_ENV_TOKEN" --data-binary @-) || { echo "curl failed"; exit 1; }`,
    'if [ "$code" != 200 ]; then echo "HTTP $code"; head -c 2000 "$out"; exit 1; fi',
    `jq -c '{title, last_action_error}' "$out"`,
  ].join('\n');
  const res = await box.exec(['bash', '-c', script], { stdin: body, timeoutSec: timeoutSec + 5, env });
  if (res.timedOut || res.exitCode !== 0) {
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset failed: ${tail(res.stdout + res.stderr + '\n' + (await serviceLogs(box)))}`);
  }
  let answer: { title?: string; last_action_error?: { code?: string; message?: string } | null };
  try {
    answer = JSON.parse(res.stdout) as typeof answer;
  } catch {
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset answered something that is not an observation: ${tail(res.stdout)}`);
  }
  if (answer.last_action_error) {
    const e = answer.last_action_error;
    throw new RolloutError(
      'environment_setup',
      `the desktop episode could not start: ${e.code ?? 'error'}: ${e.message ?? ''}\n${tail(await serviceLogs(box))}`,
    );
  }
  return { title: answer.title ?? '' };
}
