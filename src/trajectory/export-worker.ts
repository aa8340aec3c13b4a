/**
 * A thread of the parallel veRL JSONL export (see `export-pool.ts`): it opens the store itself,
 * builds the samples of each batch of rollouts it is sent and encodes them as JSONL lines into
 * memory it hands back to the main thread, which writes the batches to the file in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Store, type RolloutRecord } from '../store/store.js';
import { ByteBuffer } from './byte-buffer.js';
import { BATCH_BYTES, encodeRollouts } from './encode-batch.js';
import { VerlImageWriter } from './verl-images.js';
import type { ExportWorkerInit, FromExportWorker, ToExportWorker } from './export-messages.js';

const init = workerData as ExportWorkerInit;
const port = parentPort!;
const store = await Store.open(init.storeFile);
const source = { store, run: init.run, simulated: init.simulated };
const images = new VerlImageWriter(init.images);
/** Memory the main thread has written out and sent back. */
const spare: ArrayBuffer[] = [];
/**
 * Batches are encoded as they come, not one after the other: while one is being built, the rows of
 * the next are read (SQLite works in libuv's pool), so the thread does not wait for them.
 */
const working = new Set<Promise<void>>();

port.on('message', (message: ToExportWorker) => {
  if (message.kind === 'spare') spare.push(message.memory);
  else if (message.kind === 'batch') {
    const work = encodeBatch(message.id, message.rollouts);
    working.add(work);
    void work.finally(() => working.delete(work));
  } else
    void Promise.all(working)
      .then(() => store.close())
      .then(() => port.close());
});

async function encodeBatch(id: number, rollouts: RolloutRecord[]): Promise<void> {
  try {
    const out = new ByteBuffer(BATCH_BYTES, spare.pop());
    const { rows, rollouts: encoded } = await encodeRollouts(source, rollouts, out, images);
    const reply: FromExportWorker = { kind: 'encoded', id, memory: out.arrayBuffer, bytes: out.used, rows, rollouts: encoded };
    port.postMessage(reply, [out.arrayBuffer]);
  } catch (err) {
    const reply: FromExportWorker = { kind: 'failed', id, message: (err as Error).message ?? String(err), stack: (err as Error).stack };
    port.postMessage(reply);
  }
}
