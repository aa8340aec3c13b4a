/**
 * Gathers items written one at a time into batches written together: whatever arrived while the
 * previous batch was being written goes into the next one, up to `maxBatch` items. One batch is
 * written at a time, in arrival order. Each `add` resolves when its item's batch is written, or
 * rejects with that item's own error.
 *
 * This is what takes the store's writes off the proxy's critical path: one SQLite statement per
 * batch instead of one per call, so a busy proxy spends a fraction of the CPU on recording.
 *
 * With `lingerMs`, a batch that starts with an idle writer waits that long for company before it
 * is written (or until it is full, or someone asks for a flush), as Kafka's `linger.ms` does. A
 * lightly loaded proxy would otherwise write each call alone, and a transaction's fixed cost — a
 * hand-off to SQLite's thread and back, two context switches, a WAL commit — is most of the cost
 * of recording one call.
 */
export class WriteBatcher<T> {
  private queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private running: Promise<void> | undefined;
  /** Settles once the newest item so far is written or failed: batches go in order, so every older one is too. */
  private newest: Promise<void> = Promise.resolve();
  /** Set while a batch lingers: starts it at once. */
  private startNow: (() => void) | undefined;

  constructor(
    /** Writes the batch; resolves with one result per item: undefined when written, else that item's error. */
    private readonly writeBatch: (items: T[]) => Promise<(unknown | undefined)[]>,
    private readonly maxBatch: number,
    private readonly lingerMs = 0,
  ) {}

  add(item: T): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // calls answered in this turn of the event loop, or while the batch before is written, join the batch
      this.running ??= this.waitForCompany().then(() => this.drain());
      if (this.queue.length >= this.maxBatch) this.startNow?.();
    });
    this.newest = written.then(
      () => undefined,
      () => undefined,
    );
    return written;
  }

  /** Resolves once everything added so far is written (or has failed); what is added meanwhile is not waited for. */
  async flushed(): Promise<void> {
    this.startNow?.();
    await this.newest;
  }

  private waitForCompany(): Promise<void> {
    if (this.lingerMs <= 0) return new Promise<void>((started) => setImmediate(started));
    return new Promise<void>((started) => {
      const timer = setTimeout(() => this.startNow?.(), this.lingerMs);
      this.startNow = () => {
        clearTimeout(timer);
        this.startNow = undefined;
        started();
      };
    });
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
