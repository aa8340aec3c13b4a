import { randomBytes } from 'node:crypto';
import { browserSettings, desktopSettings, type Task } from '../config/task.js';
import type { Sandbox } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';

/**
 * What the browser and the desktop environment phases share: the env server's address, the rollout's secrets,
 * the live view, running the image's start script, the first POST /reset, and the service logs that errors carry.
 */

/** The env server inside a browser or desktop container; harnesses reach it here. */
export const ENV_SERVER_URL = 'http://127.0.0.1:7000';
export const LIVE_VIEW_PORT = 6080;

const LOG_TAIL_CHARS = 3000;
const START_ATTEMPTS = 2;
/** How many setup_timeout_sec the whole environment phase may take: two starts and the first reset. */
export const ENVIRONMENT_PHASE_DEADLINES = START_ATTEMPTS + 1;
/** Where the start scripts send each background service's output. */
const SERVICE_LOGS = '/logs/services';

/** The environment phase's whole deadline for a task: 0 for workspace tasks, which have none. */
export function environmentPhaseSec(task: Task): number {
  const gui = browserSettings(task) ?? desktopSettings(task);
  return gui ? gui.setup_timeout_sec * ENVIRONMENT_PHASE_DEADLINES : 0;
}

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

/** The fields of the first observation the orchestrator reads (the screenshot stays in the container). */
export interface ResetAnswer {
  url?: string;
  title?: string;
  last_action_error?: { code?: string; message?: string } | null;
}

/** A POST /reset: its JSON body, the observation fields to print, and its deadline. */
export interface ResetCall {
  body: string;
  fields: Array<keyof ResetAnswer>;
  timeoutSec: number;
}

/**
 * Runs the image's start script (idempotent: a second run restarts only what died, so a failed start is tried
 * once more). With `reset`, POST /reset follows in the same exec and its answer is returned: one exec fewer
 * between the container's start and the first observation. A start that fails twice is an `environment_setup`
 * error carrying the tail of what the script and the services said.
 */
export async function startEnvironment(box: Sandbox, script: string, timeoutSec: number, env: Record<string, string>): Promise<void>;
export async function startEnvironment(box: Sandbox, script: string, timeoutSec: number, env: Record<string, string>, reset: ResetCall): Promise<ResetAnswer>;
export async function startEnvironment(
  box: Sandbox,
  script: string,
  timeoutSec: number,
  env: Record<string, string>,
  reset?: ResetCall,
): Promise<ResetAnswer | void> {
  for (let attempt = 1; ; attempt++) {
    const res = reset
      ? await box.exec(['bash', '-c', `timeout -k 5 ${Math.ceil(timeoutSec)} "$0" < /dev/null || exit $?\n${resetScript(reset)}`, script], {
          stdin: reset.body,
          timeoutSec: timeoutSec + reset.timeoutSec + 5,
          env,
        })
      : await box.exec([script], { timeoutSec, env });
    // with a reset, the line the reset script prints first says the start script succeeded
    const started = reset ? res.stdout.includes(STARTED) : !res.timedOut && res.exitCode === 0;
    if (started) return reset ? resetAnswer(box, res) : undefined;
    if (attempt < START_ATTEMPTS) continue;
    const why = res.timedOut || res.exitCode === 124 ? `did not finish within ${timeoutSec} s` : `exited with code ${res.exitCode}`;
    const logs = await serviceLogs(box);
    throw new RolloutError('environment_setup', `${script} ${why} (${attempt} attempts):\n${tail(`${res.stdout}${res.stderr}\n${logs}`)}`);
  }
}

/** POST /reset on its own (the start script ran before); a failure to answer is an `environment_setup` error. */
export async function postReset(box: Sandbox, reset: ResetCall, env: Record<string, string>): Promise<ResetAnswer> {
  const res = await box.exec(['bash', '-c', resetScript(reset)], { stdin: reset.body, timeoutSec: reset.timeoutSec, env });
  return resetAnswer(box, res);
}

const STARTED = 'openforge: environment started';

/** POSTs stdin to /reset with the rollout's token and prints the asked fields of the observation as one JSON line. */
function resetScript(reset: ResetCall): string {
  return [
    'set -u',
    `echo '${STARTED}'`,
    'out=$(mktemp)',
    `code=$(curl -sS -m ${Math.ceil(reset.timeoutSec)} -o "$out" -w '%{http_code}' -X POST ${ENV_SERVER_URL}/reset -H 'content-type: application/json' -H "authorization: Bearer $OPENFORGE_ENV_TOKEN" --data-binary @-) || { echo "curl failed"; exit 1; }`,
    'if [ "$code" != 200 ]; then echo "HTTP $code"; head -c 2000 "$out"; exit 1; fi',
    `jq -c '{${reset.fields.join(', ')}}' "$out"`,
  ].join('\n');
}

async function resetAnswer(box: Sandbox, res: { exitCode: number; timedOut: boolean; stdout: string; stderr: string }): Promise<ResetAnswer> {
  const out = res.stdout.replace(`${STARTED}\n`, '');
  if (res.timedOut || res.exitCode !== 0) {
    const why = res.timedOut ? ' (no answer in time)' : '';
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset failed${why}: ${tail(`${out}${res.stderr}\n${await serviceLogs(box)}`)}`);
  }
  try {
    return JSON.parse(out) as ResetAnswer;
  } catch {
    throw new RolloutError('environment_setup', `POST ${ENV_SERVER_URL}/reset answered something that is not an observation: ${tail(out)}`);
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
