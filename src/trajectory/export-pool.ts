import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RolloutRecord } from '../store/store.js';
import { packageRoot } from '../util/paths.js';
import type { EncodedRollout, ExportWorkerInit, FromExportWorker, ToExportWorker } from './export-messages.js';

/** One batch of rollouts as JSONL lines: `bytes` views `memory`, which goes back to its worker once written. */
export interface EncodedBatch {
  bytes: Uint8Array;
  rows: number;
  rollouts: EncodedRollout[];
  giveBack(): void;
}

interface Pending {
  resolve(batch: EncodedBatch): void;
  reject(err: Error): void;
}

/** An export worker and the batches it has been sent and not yet answered. */
class WorkerSlot {
  readonly pending = new Map<number, Pending>();
  private exitError: Error | undefined;

  constructor(readonly worker: Worker) {
    worker.on('message', (message: FromExportWorker) => this.answer(message));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`export worker exited with code ${code} before it answered`)));
  }

  send(message: ToExportWorker, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  encode(id: number, rollouts: RolloutRecord[]): Promise<EncodedBatch> {
    if (this.exitError) return Promise.reject(this.exitError);
    return new Promise<EncodedBatch>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ kind: 'batch', id, rollouts });
    });
  }

  private answer(message: FromExportWorker): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.kind === 'failed') {
      const err = new Error(message.message);
      if (message.stack) err.stack = message.stack;
      pending.reject(err);
      return;
    }
    const { memory } = message;
    pending.resolve({
      bytes: new Uint8Array(memory, 0, message.bytes),
      rows: message.rows,
      rollouts: message.rollouts,
      giveBack: () => {
        if (!this.exitError) this.send({ kind: 'spare', memory }, [memory]);
      },
    });
  }

  private fail(err: Error): void {
    this.exitError ??= err;
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
  }
}

/**
 * Threads that build and encode veRL rows of batches of rollouts side by side, each over its own
 * connection to the store (SQLite readers do not block each other in WAL mode). A batch goes to the
 * worker with the fewest batches outstanding; answers come back as promises, so the caller keeps
 * its own order.
 */
export class ExportWorkerPool {
  private nextId = 0;

  private constructor(private readonly slots: WorkerSlot[]) {}

  static start(count: number, init: ExportWorkerInit): ExportWorkerPool {
    const file = path.join(packageRoot(), 'dist/trajectory/export-worker.js');
    const slots = Array.from({ length: count }, () => new WorkerSlot(new Worker(file, { workerData: init })));
    return new ExportWorkerPool(slots);
  }

  get size(): number {
    return this.slots.length;
  }

  encode(rollouts: RolloutRecord[]): Promise<EncodedBatch> {
    const slot = this.slots.reduce((least, s) => (s.pending.size < least.pending.size ? s : least));
    return slot.encode(this.nextId++, rollouts);
  }

  /** Lets the workers finish and close their store connections. */
  async close(): Promise<void> {
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            slot.worker.once('exit', () => resolve());
            slot.send({ kind: 'close' });
          }),
      ),
    );
  }

  /** Stops every worker at once (after a failure). */
  async terminate(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
