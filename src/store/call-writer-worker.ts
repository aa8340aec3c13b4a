/**
 * The call-writing thread of a recording store (see `call-writer-thread.ts`): its own connection to
 * the store's file, and a `CallWriter` that batches rows and keeps the prompt and request deltas, so
 * none of that work (nor the garbage it makes) is on the thread that serves model calls.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../util/errors.js';
import type { CallWriterInit, FromCallWriter, ToCallWriter } from './call-messages.js';
import { receivedCall } from './call-messages.js';
import { CallWriter } from './call-writer.js';
import { CONNECTION_PRAGMAS, SqliteDb } from './sqlite.js';

const init = workerData as CallWriterInit;
const port = parentPort!;
const db = await SqliteDb.open(init.file);
await db.exec(CONNECTION_PRAGMAS);
// the main thread lingers before it posts: what arrives is a batch already
const writer = new CallWriter(db, 0);
let reportedWithoutTokenIds = 0;

port.on('message', (message: ToCallWriter) => {
  if (message.kind === 'close') {
    void writer
      .close()
      .then(() => db.close())
      .then(() => port.close());
    return;
  }
  const answer: FromCallWriter = { written: [], failed: [], withoutTokenIds: 0 };
  const rows = message.calls.map((posted) =>
    writer.add(receivedCall(posted)).then(
      () => void answer.written.push(posted.id),
      (err: unknown) => void answer.failed.push({ id: posted.id, message: errorMessage(err), code: (err as { code?: string }).code }),
    ),
  );
  void Promise.all(rows).then(() => {
    answer.withoutTokenIds = writer.policyCallsWithoutTokenIds - reportedWithoutTokenIds;
    reportedWithoutTokenIds = writer.policyCallsWithoutTokenIds;
    port.postMessage(answer);
  });
});
