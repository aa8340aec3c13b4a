/**
 * Numbers that only grow at the end, held in a typed array that doubles when full. The memory comes
 * uninitialised from Node's allocator (only the first `length` numbers are ever read): a new typed
 * array is zeroed, which for the few hundred KiB of a long sample costs more than filling it.
 */
export class TokenBuffer<T extends Int32Array | Uint8Array | Float64Array> {
  private data: T;
  length = 0;

  constructor(
    private readonly make: (capacity: number) => T,
    capacity = 256,
  ) {
    this.data = make(Math.max(16, Math.ceil(capacity)));
  }

  static ints(capacity?: number): TokenBuffer<Int32Array> {
    return new TokenBuffer((n) => new Int32Array(uninitialised(n * 4)), capacity);
  }

  static bytes(capacity?: number): TokenBuffer<Uint8Array> {
    return new TokenBuffer((n) => new Uint8Array(uninitialised(n)), capacity);
  }

  static floats(capacity?: number): TokenBuffer<Float64Array> {
    return new TokenBuffer((n) => new Float64Array(uninitialised(n * 8)), capacity);
  }

  /** Appends `source[from …]`. */
  append(source: ArrayLike<number>, from = 0): void {
    const count = source.length - from;
    if (count <= 0) return;
    this.room(count);
    if (from === 0) this.data.set(source, this.length);
    else if (ArrayBuffer.isView(source)) this.data.set((source as unknown as T).subarray(from), this.length);
    else for (let i = 0; i < count; i++) this.data[this.length + i] = source[from + i]!;
    this.length += count;
  }

  appendRepeated(value: number, count: number): void {
    if (count <= 0) return;
    this.room(count);
    this.data.fill(value, this.length, this.length + count);
    this.length += count;
  }

  at(i: number): number {
    return this.data[i]!;
  }

  /** The numbers so far, as a view (valid until the next append). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  private room(count: number): void {
    if (this.length + count <= this.data.length) return;
    const grown = this.make(Math.max(this.data.length * 2, this.length + count));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
  }
}

/** An ArrayBuffer of its own (never a slice of Node's pool, so typed arrays of any width fit at offset 0), not zeroed. */
function uninitialised(bytes: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(bytes).buffer as ArrayBuffer;
}
