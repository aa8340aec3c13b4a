import type { RetryPolicy } from '../types.js';
import type { CallSignal } from '../calls/call-cancel.js';

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 };

/** Statuses worth another try: timeouts, conflicts, rate limits (also vLLM paused for a weight update), server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Wait before retry number `retry` (1-based): an upstream's Retry-After (seconds) when it gives
 * one, otherwise full jitter over an exponential window, both capped.
 */
export function retryDelayMs(retry: number, policy: RetryPolicy, retryAfter?: string): number {
  const seconds = retryAfter === undefined ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  const window = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return Math.random() * window;
}

export function sleep(ms: number, signal: CallSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
