/**
 * Gathers items written one at a time into batches written together: whatever arrived while the
 * previous batch was being written goes into the next one, up to `maxBatch` items. One batch is
 * written at a time, in arrival order. Each `add` resolves when its item's batch is written, or
 * rejects with that item's own error.
 *
 * This is what takes the store's writes off the proxy's critical path: one SQLite statement per
 * batch instead of one per call, so a busy proxy spends a fraction of the CPU on recording.
 */
export class WriteBatcher<T> {
  private queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(
    /** Writes the batch; resolves with one result per item: undefined when written, else that item's error. */
    private readonly writeBatch: (items: T[]) => Promise<(unknown | undefined)[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // calls answered in this turn of the event loop, or while the batch before is written, join the batch
      this.running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.drain());
    });
  }

  /** Resolves once everything added so far is written (or has failed). */
  async flushed(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      let results: (unknown | undefined)[];
      try {
        results = await this.writeBatch(batch.map((q) => q.item));
      } catch (err) {
        results = batch.map(() => err);
      }
      batch.forEach((q, i) => (results[i] === undefined ? q.resolve() : q.reject(results[i])));
    }
    this.running = undefined;
  }
}
