import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../util/paths.js';
import { postedCall, receivedCall, type FromCallWriter, type PostedCall, type ToCallWriter } from './call-messages.js';
import type { CallWriting } from './call-writer.js';
import type { RecordedCall } from '../records/call.js';

/** Calls posted at most per message: a full batch goes at once instead of lingering. */
const MAX_CALLS_PER_POST = 64;

interface Waiting {
  written: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

/**
 * Writes recorded calls on a thread of their own (`call-writer-worker.ts`, its own SQLite connection
 * to the same file). The serving thread only copies each call into a message, once per linger for
 * all the calls that finished meanwhile; the rows' parameters, the prompt and request deltas, the
 * binding and the garbage all that makes are the writing thread's, and its GC pauses never hold a
 * model call. Each `add` settles when its row is stored or has failed, as with `CallWriter`.
 *
 * If the thread stops (it could not open the file, it crashed, it was terminated), the calls it had
 * not answered are rejected and the calls after it go to `fallback`, on the store's own connection.
 */
export class CallWriterThread implements CallWriting {
  private readonly waiting = new Map<number, Waiting>();
  private queue: PostedCall[] = [];
  private transfer: ArrayBuffer[] = [];
  /** Cancels the post scheduled for what is queued. */
  private cancelPost: (() => void) | undefined;
  private nextId = 0;
  /** As the thread reported them. */
  private withoutTokenIdsOnThread = 0;
  private stopped: Error | undefined;
  private closing = false;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly lingerMs: number,
    private readonly fallback: () => CallWriting,
  ) {
    // the thread keeps the process alive only while calls wait for it, as pending SQLite work does
    worker.unref();
    worker.on('message', (answer: FromCallWriter) => this.settle(answer));
    worker.on('error', (err) => this.stop(err));
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.stop(new Error(`exited with code ${code}`));
        resolve();
      }),
    );
  }

  /** Starts the thread on `file`, a store whose schema is up to date. */
  static start(file: string, lingerMs: number, fallback: () => CallWriting): CallWriterThread {
    const worker = new Worker(path.join(packageRoot(), 'dist/store/call-writer-worker.js'), { workerData: { file } });
    return new CallWriterThread(worker, lingerMs, fallback);
  }

  add(call: RecordedCall): Promise<void> {
    if (this.stopped) return this.fallback().add(call);
    const id = this.nextId++;
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    const written = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    if (this.waiting.size === 0) this.worker.ref();
    this.waiting.set(id, { written, resolve, reject });
    this.queue.push(postedCall(id, call, this.transfer));
    if (this.queue.length >= MAX_CALLS_PER_POST) this.post();
    else this.schedulePost();
    return written;
  }

  get policyCallsWithoutTokenIds(): number {
    return this.withoutTokenIdsOnThread + (this.stopped ? this.fallback().policyCallsWithoutTokenIds : 0);
  }

  async flushed(): Promise<void> {
    this.post();
    await Promise.allSettled([...this.waiting.values()].map((w) => w.written));
    if (this.stopped) await this.fallback().flushed();
  }

  async close(): Promise<void> {
    await this.flushed();
    if (!this.stopped) {
      this.closing = true;
      this.worker.ref();
      this.worker.postMessage({ kind: 'close' } satisfies ToCallWriter);
      await this.exited;
    } else if (!this.closing) {
      await this.fallback().close();
    }
  }

  /** Stops the thread at once, as a crash would: what it was sent and did not answer fails; later calls go to the fallback. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
    await this.exited;
  }

  private schedulePost(): void {
    if (this.cancelPost) return;
    if (this.lingerMs > 0) {
      const timer = setTimeout(() => this.post(), this.lingerMs);
      this.cancelPost = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.post());
      this.cancelPost = () => clearImmediate(immediate);
    }
  }

  private post(): void {
    this.cancelPost?.();
    this.cancelPost = undefined;
    if (this.queue.length === 0 || this.stopped) return;
    const message: ToCallWriter = { kind: 'calls', calls: this.queue };
    this.worker.postMessage(message, this.transfer);
    this.queue = [];
    this.transfer = [];
  }

  private settle(answer: FromCallWriter): void {
    this.withoutTokenIdsOnThread += answer.withoutTokenIds;
    for (const id of answer.written) {
      this.waiting.get(id)?.resolve();
      this.waiting.delete(id);
    }
    for (const { id, message, code } of answer.failed) {
      this.waiting.get(id)?.reject(Object.assign(new Error(message), code === undefined ? {} : { code }));
      this.waiting.delete(id);
    }
    if (this.waiting.size === 0 && !this.closing) this.worker.unref();
  }

  /** The thread is gone: what it was sent and did not answer fails, what was still queued goes to the fallback. */
  private stop(cause: Error): void {
    if (this.stopped) return;
    this.stopped = this.closing ? cause : new Error(`the call-writing thread stopped (${cause.message}) before it confirmed this call's record`);
    this.cancelPost?.();
    this.cancelPost = undefined;
    const unposted = this.queue;
    this.queue = [];
    this.transfer = [];
    for (const posted of unposted) {
      const w = this.waiting.get(posted.id)!;
      this.waiting.delete(posted.id);
      this.fallback().add(receivedCall(posted)).then(w.resolve, w.reject);
    }
    for (const w of this.waiting.values()) w.reject(this.stopped);
    this.waiting.clear();
  }
}
