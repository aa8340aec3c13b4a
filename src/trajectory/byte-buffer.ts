import type { ByteSink } from './json-line.js';

/**
 * Bytes encoded into memory that grows as needed, over an ArrayBuffer of its own (never Node's
 * shared pool), so that it can be transferred to another thread without a copy and sent back for
 * reuse (fresh memory costs a page fault per 4 KiB).
 */
export class ByteBuffer implements ByteSink {
  buffer: Buffer;
  used = 0;

  constructor(initialBytes: number, reuse?: ArrayBuffer) {
    this.buffer = reuse && reuse.byteLength >= initialBytes ? Buffer.from(reuse) : Buffer.allocUnsafeSlow(initialBytes);
  }

  reserve(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.used + bytes));
    this.buffer.copy(grown, 0, 0, this.used);
    this.buffer = grown;
  }

  /** The underlying memory, to transfer (the bytes are its first `used`). */
  get arrayBuffer(): ArrayBuffer {
    return this.buffer.buffer as ArrayBuffer;
  }
}
