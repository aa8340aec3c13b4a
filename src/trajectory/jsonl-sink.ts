import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { AtomicFile } from './atomic-file.js';

/** Lines are encoded straight into chunks of this many bytes, each written to the file in one go. */
const CHUNK_BYTES = 4 << 20;
/** Chunks the stream may hold while the disk catches up: building goes on meanwhile instead of waiting for each write. */
const BUFFERED_BYTES = 8 << 20;
/** UTF-8 needs at most 3 bytes per UTF-16 code unit. */
const MAX_BYTES_PER_CHAR = 3;
const NEWLINE = 0x0a;

/**
 * A JSONL file written as rows come, with the stream's backpressure respected, committed by rename.
 * Each line is encoded into the current chunk as it is made (no joined string, no copy per line).
 */
export class JsonlSink<Row> {
  private readonly file: AtomicFile;
  private readonly stream: WriteStream;
  private chunk: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  /** Chunks the stream has written out, to be filled again (fresh memory costs a page fault per 4 KiB). */
  private readonly spare: Buffer[] = [];
  private failure: Error | undefined;
  rows = 0;

  constructor(finalPath: string) {
    this.file = new AtomicFile(finalPath);
    this.stream = createWriteStream(this.file.tempPath, { highWaterMark: BUFFERED_BYTES });
    this.stream.on('error', (err) => (this.failure ??= err));
  }

  async write(row: Row): Promise<void> {
    const json = JSON.stringify(row);
    const worstCase = json.length * MAX_BYTES_PER_CHAR + 1;
    if (this.used + worstCase > this.chunk.length) {
      await this.flush();
      // a line larger than a chunk gets a chunk of its own
      if (worstCase > this.chunk.length) this.chunk = Buffer.allocUnsafe(worstCase);
    }
    this.used += this.chunk.write(json, this.used);
    this.chunk[this.used++] = NEWLINE;
    this.rows++;
  }

  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((resolve, reject) => this.stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (this.failure) throw this.failure;
    this.file.commit();
  }

  async abort(): Promise<void> {
    if (!this.stream.closed) {
      const closed = once(this.stream, 'close');
      this.stream.destroy();
      await closed.catch(() => undefined);
    }
    this.file.discard();
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    if (this.failure) throw this.failure;
    // the stream holds the chunk until it reaches the disk: the next lines go into another one
    const full = this.chunk;
    const written = () => {
      if (full.length === CHUNK_BYTES) this.spare.push(full);
    };
    const ready = this.stream.write(full.subarray(0, this.used), written);
    this.chunk = this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
    if (!ready) await once(this.stream, 'drain'); // rejects if the stream fails meanwhile
  }
}
