/**
 * Per-rollout sequence numbers handed out in arrival order. Numbering starts after `lastRecorded`
 * (asked once per rollout; 0 when absent), so a proxy reopening a store does not reuse numbers.
 */
export class CallSequence {
  private readonly last = new Map<string, number>();
  private readonly seeding = new Map<string, Promise<void>>();

  constructor(private readonly lastRecorded?: (rolloutId: string) => Promise<number>) {}

  /** Synchronous once the rollout's numbering is known; call it in arrival order either way. */
  next(rolloutId: string): number | Promise<number> {
    const last = this.last.get(rolloutId);
    if (last !== undefined) {
      this.last.set(rolloutId, last + 1);
      return last + 1;
    }
    if (!this.lastRecorded) {
      this.last.set(rolloutId, 1);
      return 1;
    }
    // Continuations of one promise run in the order they were attached, which is arrival order.
    let seeding = this.seeding.get(rolloutId);
    if (!seeding) {
      seeding = this.lastRecorded(rolloutId).then(
        (n) => this.seeded(rolloutId, n),
        () => this.seeded(rolloutId, 0),
      );
      this.seeding.set(rolloutId, seeding);
    }
    return seeding.then(() => {
      const seq = (this.last.get(rolloutId) ?? 0) + 1;
      this.last.set(rolloutId, seq);
      return seq;
    });
  }

  private seeded(rolloutId: string, lastSeq: number): void {
    this.seeding.delete(rolloutId);
    if (!this.last.has(rolloutId)) this.last.set(rolloutId, Number.isInteger(lastSeq) && lastSeq > 0 ? lastSeq : 0);
  }
}
