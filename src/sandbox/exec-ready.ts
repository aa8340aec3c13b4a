import { RolloutError, errorMessage } from '../util/errors.js';
import type { Sandbox } from './types.js';

export interface ExecReadyPoll {
  timeoutMs: number;
  intervalMs: number;
  /** Names the sandbox in the timeout's message, e.g. `container` or `pod r-1`. */
  what: string;
  /** An error that means the sandbox will never answer: thrown at once instead of polling to the deadline. */
  fatal(err: unknown): Error | undefined;
}

/** "Running" is not "exec-ready": probe with a real exec until it answers. */
export async function waitExecReady(sandbox: Pick<Sandbox, 'exec'>, poll: ExecReadyPoll): Promise<void> {
  const deadline = Date.now() + poll.timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      const res = await sandbox.exec(['true'], { timeoutSec: 10 });
      if (res.exitCode === 0) return;
      lastError = `exit ${res.exitCode}: ${res.stderr.trim()}`;
    } catch (err) {
      const fatal = poll.fatal(err);
      if (fatal) throw fatal;
      lastError = errorMessage(err);
    }
    await new Promise((r) => setTimeout(r, poll.intervalMs));
  }
  throw new RolloutError('infrastructure', `${poll.what} not exec-ready after ${poll.timeoutMs / 1000} s: ${lastError}`);
}
