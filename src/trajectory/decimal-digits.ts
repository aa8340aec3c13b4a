/**
 * Decimal digits written into byte buffers: groups of four digits as one 32-bit store from a table,
 * shorter heads a digit pair at a time. A token id of five or six digits is then three stores.
 */

/** "00" … "99" */
const DIGIT_PAIRS = new Uint8Array(Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1'));
/** "0000" … "9999", each as the 32-bit little-endian word of its four bytes. */
const DIGIT_QUADS = new Uint32Array(10000);
for (let i = 0; i < 10000; i++) {
  const text = String(i).padStart(4, '0');
  DIGIT_QUADS[i] = (text.charCodeAt(0) | (text.charCodeAt(1) << 8) | (text.charCodeAt(2) << 16) | (text.charCodeAt(3) << 24)) >>> 0;
}
const ZERO = 0x30;

/** A byte buffer and a DataView of the same bytes (offsets are the same in both). */
export interface DigitTarget {
  bytes: Uint8Array;
  data: DataView;
}

export function digitTarget(buffer: Uint8Array): DigitTarget {
  return {
    bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length),
    data: new DataView(buffer.buffer, buffer.byteOffset, buffer.length),
  };
}

/** Exactly four digits of v < 10 000, zero-padded, at `at`. */
export function write4Digits(v: number, data: DataView, at: number): void {
  data.setUint32(at, DIGIT_QUADS[v]!, true);
}

/** v < 10 000 without leading zeros; returns the end. */
export function writeUpTo4Digits(v: number, bytes: Uint8Array, at: number): number {
  if (v < 10) {
    bytes[at] = ZERO + v;
    return at + 1;
  }
  if (v < 100) {
    bytes[at] = DIGIT_PAIRS[v * 2]!;
    bytes[at + 1] = DIGIT_PAIRS[v * 2 + 1]!;
    return at + 2;
  }
  const high = (v / 100) | 0;
  const low = (v - high * 100) * 2;
  if (high < 10) {
    bytes[at] = ZERO + high;
    bytes[at + 1] = DIGIT_PAIRS[low]!;
    bytes[at + 2] = DIGIT_PAIRS[low + 1]!;
    return at + 3;
  }
  bytes[at] = DIGIT_PAIRS[high * 2]!;
  bytes[at + 1] = DIGIT_PAIRS[high * 2 + 1]!;
  bytes[at + 2] = DIGIT_PAIRS[low]!;
  bytes[at + 3] = DIGIT_PAIRS[low + 1]!;
  return at + 4;
}

/** An integer 0 ≤ v < 2^32 without leading zeros; returns the end. `bytes` and `data` view the same memory. */
export function writeUint(v: number, bytes: Uint8Array, data: DataView, at: number): number {
  if (v < 10000) return writeUpTo4Digits(v, bytes, at);
  if (v < 100000000) {
    const high = (v / 10000) | 0;
    at = writeUpTo4Digits(high, bytes, at);
    write4Digits(v - high * 10000, data, at);
    return at + 4;
  }
  const top = Math.floor(v / 100000000);
  const rest = v - top * 100000000;
  const middle = (rest / 10000) | 0;
  at = writeUpTo4Digits(top, bytes, at);
  write4Digits(middle, data, at);
  write4Digits(rest - middle * 10000, data, at + 4);
  return at + 8;
}
