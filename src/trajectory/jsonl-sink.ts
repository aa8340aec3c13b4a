import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { AtomicFile } from './atomic-file.js';
import { writeJsonLine, type ByteSink } from './json-line.js';

/** Lines are encoded straight into chunks of this many bytes, each written to the file in one go. */
const CHUNK_BYTES = 4 << 20;
/** Chunks the stream may hold while the disk catches up: building goes on meanwhile instead of waiting for each write. */
const BUFFERED_BYTES = 8 << 20;

/**
 * A JSONL file written as rows come, with the stream's backpressure respected, committed by rename.
 * Each line is encoded into the current chunk as it is made (see `writeJsonRow`: no string per line).
 */
export class JsonlSink<Row> implements ByteSink {
  private readonly file: AtomicFile;
  private readonly stream: WriteStream;
  buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  used = 0;
  /** Chunks the stream has written out, to be filled again (fresh memory costs a page fault per 4 KiB). */
  private readonly spare: Buffer[] = [];
  private failure: Error | undefined;
  private mustDrain = false;
  rows = 0;

  constructor(finalPath: string) {
    this.file = new AtomicFile(finalPath);
    this.stream = createWriteStream(this.file.tempPath, { highWaterMark: BUFFERED_BYTES });
    this.stream.on('error', (err) => (this.failure ??= err));
  }

  async write(row: Row): Promise<void> {
    if (this.failure) throw this.failure;
    writeJsonLine(row, this);
    this.rows++;
    if (this.mustDrain) {
      this.mustDrain = false;
      await once(this.stream, 'drain'); // rejects if the stream fails meanwhile
    }
  }

  /**
   * Lines encoded elsewhere (an export worker), appended as they are; `written` is called once the
   * stream is done with the bytes, so their memory can be reused.
   */
  async writeEncoded(bytes: Uint8Array, rows: number, written?: () => void): Promise<void> {
    if (this.failure) throw this.failure;
    this.flush();
    this.rows += rows;
    if (!this.stream.write(bytes, () => written?.())) await once(this.stream, 'drain');
  }

  /** Room for `bytes` more bytes: a full chunk goes to the stream, a line larger than a chunk gets a chunk of its own. */
  reserve(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    this.flush();
    if (bytes > this.buffer.length) this.buffer = Buffer.allocUnsafe(bytes);
  }

  async close(): Promise<void> {
    this.flush();
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

  private flush(): void {
    if (this.used === 0) return;
    // the stream holds the chunk until it reaches the disk: the next bytes go into another one
    const full = this.buffer;
    const written = () => {
      if (full.length === CHUNK_BYTES) this.spare.push(full);
    };
    if (!this.stream.write(full.subarray(0, this.used), written)) this.mustDrain = true;
    this.buffer = this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }
}
