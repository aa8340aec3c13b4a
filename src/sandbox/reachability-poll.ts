import { withDeadline } from '../util/deadline.js';
import { errorMessage } from '../util/errors.js';
import { BackendUnreachableError } from './backend-unreachable.js';

/** Between two tries while the backend is away. */
const POLL_INTERVAL_MS = 500;
/** One try that has not answered by then counts as failed. */
const TRY_DEADLINE_MS = 5000;

/**
 * `SandboxBackend.waitUntilReachable` for a backend with a cheap request to try (the engine's ping, a one-pod
 * list): every rollout waiting to retry shares one poll while the backend is away.
 */
export class ReachabilityPoll {
  private polling?: Promise<boolean>;

  constructor(
    private readonly backend: 'docker' | 'kubernetes',
    private readonly tryOnce: () => Promise<unknown>,
  ) {}

  /** Resolves false when the backend answers at once, true when it answered after a wait; see `SandboxBackend`. */
  wait(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    this.polling ??= this.poll(timeoutMs).finally(() => (this.polling = undefined));
    return untilAborted(this.polling, signal);
  }

  private async poll(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let lastError: string;
    for (let waited = false; ; waited = true) {
      try {
        await withDeadline(this.tryOnce(), TRY_DEADLINE_MS, () => new Error(`no answer within ${TRY_DEADLINE_MS / 1000} s`));
        return waited;
      } catch (err) {
        lastError = errorMessage(err);
      }
      if (Date.now() >= deadline) throw new BackendUnreachableError(this.backend, Math.round(timeoutMs / 1000), lastError);
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now()))));
    }
  }
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
