/**
 * Token arrays handed back by a cache, reused for what it caches next. Each Int32Array has its own
 * ArrayBuffer, which V8 counts as external memory: a prompt cache that allocated a fresh ~6 KB one
 * per recorded call and kept it for a second or so pushed V8 into a full (mark-compact) GC every
 * ~600 calls, each with a main-thread pause of up to ~15 ms on one core. Reusing the arrays of
 * forgotten calls keeps that allocation near zero at a steady rate of calls.
 */
export class SpareTokenArrays {
  /** Whole buffers, each at its full capacity. */
  private readonly spare: Int32Array[] = [];
  private spareTokens = 0;

  constructor(
    private readonly maxSpare = 32,
    /** Bounds the memory held in spares (8 MB): a few long contexts' arrays must not stay around for nothing. */
    private readonly maxSpareTokens = 2_000_000,
  ) {}

  /** A view of `length` tokens (contents undefined): the smallest spare buffer that fits, or a new one with room to grow. */
  take(length: number): Int32Array {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) {
      const capacity = (this.spare[i] as Int32Array).length;
      if (capacity >= length && (best < 0 || capacity < (this.spare[best] as Int32Array).length)) best = i;
    }
    if (best < 0) return new Int32Array(roomToGrow(length)).subarray(0, length);
    const buffer = this.spare.splice(best, 1)[0] as Int32Array;
    this.spareTokens -= buffer.length;
    return buffer.subarray(0, length);
  }

  /** Takes back an array from `take` that nobody reads any more. */
  give(tokens: Int32Array): void {
    const buffer = new Int32Array(tokens.buffer);
    if (this.spare.length >= this.maxSpare || this.spareTokens + buffer.length > this.maxSpareTokens) return;
    this.spare.push(buffer);
    this.spareTokens += buffer.length;
  }
}

/** Room for a conversation to grow a few turns before its next call needs a bigger buffer. */
function roomToGrow(tokens: number): number {
  return Math.ceil((tokens * 1.25) / 256) * 256 || 256;
}

/** Tokens a view from `take` holds in memory (its whole buffer). */
export function tokenCapacity(tokens: Int32Array): number {
  return tokens.buffer.byteLength / Int32Array.BYTES_PER_ELEMENT;
}
