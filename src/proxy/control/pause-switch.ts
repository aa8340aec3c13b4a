/** How long a held model call waits for the resume before it is refused, when the pause does not say. */
export const DEFAULT_MAX_HOLD_SEC = 300;

/** How a held call ended its wait: the proxy resumed, its `max_hold_sec` ran out, or its client went away. */
export type HoldEnd = 'resumed' | 'expired' | 'gone';

/**
 * Whether the proxy is pausing new model calls (while the trainer swaps the policy's weights), and how:
 * refused with 429 + Retry-After, or held (their connections open, nothing answered) until the resume.
 */
export class PauseSwitch {
  private retryAfter: number | null = null;
  private holdSec: number | null = null;
  private release: (() => void) | undefined;
  private released: Promise<void> = Promise.resolve();
  private holding = 0;
  private version: string | null = null;

  /** The policy weight version the engine serves now (the last resume's that named one), recorded with every call; null until one is named. */
  get weightVersion(): string | null {
    return this.version;
  }

  get paused(): boolean {
    return this.retryAfter !== null;
  }

  /** Seconds a refused client is told to wait (`Retry-After`); null while serving. */
  get retryAfterSec(): number | null {
    return this.retryAfter;
  }

  /** While paused in hold mode: how long each new call may be held; null otherwise. */
  get maxHoldSec(): number | null {
    return this.holdSec;
  }

  /** Calls waiting for the resume now. */
  get held(): number {
    return this.holding;
  }

  /** `hold` set: new calls wait up to `maxHoldSec` each for the resume instead of being refused. */
  pause(retryAfterSec: number, hold?: { maxHoldSec: number }): void {
    this.retryAfter = retryAfterSec;
    this.holdSec = hold ? hold.maxHoldSec : null;
    if (!this.release) this.released = new Promise((resolve) => (this.release = resolve));
  }

  /** `weightVersion` set: the engine serves those weights from now on (the update the pause was for). */
  resume(weightVersion?: string): void {
    if (weightVersion !== undefined) this.version = weightVersion;
    this.retryAfter = null;
    this.holdSec = null;
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  /** Holds one call until the resume, its `maxHoldSec` or its client's going (`gone`). */
  async hold(gone: AbortSignal): Promise<HoldEnd> {
    const limitMs = (this.holdSec ?? 0) * 1000;
    this.holding++;
    let timer: NodeJS.Timeout | undefined;
    let onGone: (() => void) | undefined;
    try {
      return await Promise.race([
        this.released.then(() => 'resumed' as const),
        new Promise<HoldEnd>((resolve) => (timer = setTimeout(() => resolve('expired'), limitMs))),
        new Promise<HoldEnd>((resolve) => {
          onGone = () => resolve('gone');
          if (gone.aborted) onGone();
          else gone.addEventListener('abort', onGone, { once: true });
        }),
      ]);
    } finally {
      this.holding--;
      clearTimeout(timer);
      if (onGone) gone.removeEventListener('abort', onGone);
    }
  }
}
