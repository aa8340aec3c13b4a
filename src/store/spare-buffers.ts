/**
 * Buffers handed back by a cache, reused for what it caches next. Each buffer is an ArrayBuffer of
 * its own, which V8 counts as external memory: a cache that allocated a fresh few-KB one per recorded
 * call and kept it for a second or so pushed V8 into a full (mark-compact) GC every ~600 calls, each
 * with a main-thread pause of up to ~15 ms on one core. Reusing the buffers of forgotten calls keeps
 * that allocation near zero at a steady rate of calls. (Kept as JS strings or arrays instead, the
 * same data lives long enough to be promoted to the old generation and ends up there as garbage:
 * the same full GCs, by another road.)
 */
export class SpareBuffers {
  /** Whole buffers, each at its full capacity. */
  private readonly spare: ArrayBuffer[] = [];
  private spareBytes = 0;

  constructor(
    private readonly maxSpare = 32,
    /** Bounds the memory held in spares: a few long contexts' buffers must not stay around for nothing. */
    private readonly maxSpareBytes = 8 * 1024 * 1024,
  ) {}

  /** A buffer of at least `byteLength` bytes (contents undefined): the smallest spare that fits, or a new one with room to grow. */
  take(byteLength: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) {
      const capacity = (this.spare[i] as ArrayBuffer).byteLength;
      if (capacity >= byteLength && (best < 0 || capacity < (this.spare[best] as ArrayBuffer).byteLength)) best = i;
    }
    if (best < 0) return new ArrayBuffer(roomToGrow(byteLength));
    const buffer = this.spare.splice(best, 1)[0] as ArrayBuffer;
    this.spareBytes -= buffer.byteLength;
    return buffer;
  }

  /** Takes back a buffer from `take` that nobody reads any more. */
  give(buffer: ArrayBuffer): void {
    if (this.spare.length >= this.maxSpare || this.spareBytes + buffer.byteLength > this.maxSpareBytes) return;
    this.spare.push(buffer);
    this.spareBytes += buffer.byteLength;
  }
}

/** Room for a conversation to grow a few turns before its next call needs a bigger buffer. */
function roomToGrow(bytes: number): number {
  return Math.ceil((bytes * 1.25) / 1024) * 1024 || 1024;
}
