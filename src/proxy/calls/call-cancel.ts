/**
 * What the proxy's call path reads of a cancellation: the part of `AbortSignal` it uses, so a real
 * `AbortSignal` passes too.
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A call's cancellation, aborted when its client hangs up: an `AbortController` and its signal in
 * one small object. On Node 20 an `AbortSignal` is an `EventTarget`, built with maps of its own: a
 * controller, its signal and one listener cost ~10 µs a call in a loop, and perf put ~35 µs of every
 * call's serving-thread time in place on them (docs/performance.md). Listeners run
 * once, in the order they were added; one added after the abort never runs, as with `AbortSignal`.
 */
export class CallCancel implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners?.splice(index, 1);
  }
}
