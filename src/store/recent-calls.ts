/** One remembered call of a rollout: its seq and what a delta writer keeps of it. */
export interface RecentCall<T> {
  seq: number;
  value: T;
}

/**
 * The last few calls written for each rollout, as bases for the next call's delta. Bounded in memory:
 * past `budget` (in `sizeOf` units) the least recently written rollouts are forgotten first.
 */
export class RecentCalls<T> {
  private readonly byRollout = new Map<string, RecentCall<T>[]>();
  private cached = 0;

  constructor(
    /** Earlier calls of one rollout kept (sub-agents interleave several conversations). */
    private readonly perRollout: number,
    private readonly budget: number,
    private readonly sizeOf: (value: T) => number,
    /** Called with each value forgotten (pushed out, evicted or dropped), which nothing here reads again. */
    private readonly onForget: (value: T) => void = () => undefined,
  ) {}

  /** The rollout's remembered calls, oldest first. */
  of(rolloutId: string): readonly RecentCall<T>[] {
    return this.byRollout.get(rolloutId) ?? [];
  }

  /** Call once the row is written, or goes into the same atomic write as the rows that may use it: only stored rows may serve as a base. */
  remember(rolloutId: string, seq: number, value: T): void {
    const list = this.byRollout.get(rolloutId) ?? [];
    this.byRollout.delete(rolloutId); // re-inserted last: Map order is the LRU order
    list.push({ seq, value });
    this.cached += this.sizeOf(value);
    while (list.length > this.perRollout) this.drop(list.shift()!.value);
    this.byRollout.set(rolloutId, list);
    for (const [id, old] of this.byRollout) {
      if (this.cached <= this.budget || id === rolloutId) break;
      this.byRollout.delete(id);
      for (const c of old) this.drop(c.value);
    }
  }

  /**
   * Drops every call remembered under this seq, as when its write failed: it must not serve as a base
   * (a failed duplicate may sit beside the stored row of the same seq, so both go).
   */
  forget(rolloutId: string, seq: number): void {
    const list = this.byRollout.get(rolloutId);
    if (!list) return;
    for (const c of list) if (c.seq === seq) this.drop(c.value);
    this.byRollout.set(
      rolloutId,
      list.filter((c) => c.seq !== seq),
    );
  }

  private drop(value: T): void {
    this.cached -= this.sizeOf(value);
    this.onForget(value);
  }
}
