/**
 * Settling after an action, instead of fixed sleeps: the screen counts as settled once every source of change
 * (X damage on the screen, AT-SPI events in the accessibility tree) has been quiet for a while, capped.
 */

export interface SettlePolicy {
  /** How long every source must stay quiet to count as settled. */
  quietMs: number;
  /** How long to wait for the first change after an action before taking the screen as unchanged. */
  firstDamageMs: number;
  /** The whole settle never takes longer than this, however busy the screen. */
  capMs: number;
}

export const DEFAULT_SETTLE: SettlePolicy = { quietMs: 40, firstDamageMs: 120, capMs: 2000 };

/** A source of change: how many changes so far, when the latest was, and a call on each. */
export interface Activity {
  readonly changes: number;
  /** performance.now() of the latest change (0 before any). */
  readonly lastChange: number;
  /** Calls `onChange` on each change until the returned function is called. */
  subscribe(onChange: () => void): () => void;
}

/** Counts changes and wakes subscribers; the sources (X damage, AT-SPI events) call `changed()`. */
export class ChangeClock implements Activity {
  changes = 0;
  lastChange = 0;
  private readonly listeners = new Set<() => void>();

  changed(): void {
    this.changes++;
    this.lastChange = performance.now();
    for (const l of this.listeners) l();
  }

  subscribe(onChange: () => void): () => void {
    this.listeners.add(onChange);
    return () => this.listeners.delete(onChange);
  }
}

/** Several sources settled together: mark() before an action, settle(mark) after it. */
export class Settler {
  constructor(private readonly sources: Activity[]) {}

  /** Changes counted after the mark belong to what comes next. */
  mark(): number[] {
    return this.sources.map((s) => s.changes);
  }

  /**
   * Waits until some source changed since `mark` and then all stayed quiet for quietMs, or — when nothing
   * changed within firstDamageMs — returns at once. Never longer than capMs. Returns the time spent.
   */
  async settle(mark: number[], policy: SettlePolicy = DEFAULT_SETTLE): Promise<number> {
    const started = performance.now();
    const deadline = started + policy.capMs;
    for (;;) {
      const now = performance.now();
      if (now >= deadline) break;
      const changed = this.sources.some((s, i) => s.changes > (mark[i] ?? 0));
      const last = Math.max(...this.sources.map((s) => s.lastChange));
      if (!changed && now - started >= policy.firstDamageMs) break;
      if (changed && now - last >= policy.quietMs) break;
      const until = changed ? last + policy.quietMs : started + policy.firstDamageMs;
      await this.nextChangeOr(Math.max(1, Math.min(until, deadline) - now));
    }
    return performance.now() - started;
  }

  private nextChangeOr(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const unsubscribe: Array<() => void> = [];
      const done = () => {
        clearTimeout(timer);
        for (const u of unsubscribe) u();
        resolve();
      };
      const timer = setTimeout(done, ms);
      for (const s of this.sources) unsubscribe.push(s.subscribe(done));
    });
  }
}
