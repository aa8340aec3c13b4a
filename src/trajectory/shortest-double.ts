/**
 * Writes a double as JavaScript prints it (`String(x)`: the shortest decimal that reads back as x,
 * the closest one if several are that short) straight into a byte buffer, for the values training
 * rows are full of: logprobs and other fractions with 1e-6 ≤ |x| < 1e15. V8 takes ~120 ns per
 * number and a string per call; this takes about half, and no allocation.
 *
 * How it stays exact with doubles only:
 * - x × 10^q (q ≤ 22, so 10^q is an exact double) is computed exactly as hi + lo with Dekker's
 *   product, and so is half the gap between x and its neighbouring doubles, h = 2^(e-53) × 10^q.
 * - A 16-digit decimal c reads back as x when |c - x × 10^q| < h. Those within h are tried (at
 *   most three); one ending in 0 means x has a shorter form, which is then unique and is the answer.
 *   Otherwise the closest is. With none, the answer is the 17-digit decimal closest to x (17 digits
 *   always read back), halfway cases rounding to even as V8 does.
 * - The tests compare a quantity computed with a rounding error below 2^-50 against a bound: a
 *   value within 1e-9 of its bound is not decided here. Such values, powers of two (whose lower gap
 *   is half the upper one) and values out of range return -1: the caller prints them with String().
 *   The unit test checks millions of values of several distributions against String().
 */

import { write4Digits } from './decimal-digits.js';

const POW10 = new Float64Array(Array.from({ length: 23 }, (_, i) => Number(`1e${i}`)));
/** Veltkamp's splitter for 53-bit doubles: 2^27 + 1. */
const SPLITTER = 134217729;
const POW10_HIGH = POW10.map((t) => {
  const c = SPLITTER * t;
  return c - (c - t);
});
const POW10_LOW = POW10.map((t, i) => t - POW10_HIGH[i]!);
const LOG10_2 = 0.3010299956639812;
/** Far above the computations' rounding errors (< 2^-50), far below the distances they decide. */
const MARGIN = 1e-9;
const NONE = 1e9;
const ZERO = 0x30;

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer); // little-endian: words[1] holds sign, exponent and the top of the fraction

/** The number of bytes writeShortestDouble may write at most: sign, "0.", 5 zeros, 17 digits. */
export const SHORTEST_DOUBLE_MAX_BYTES = 25;

/**
 * Writes `String(x)` into buf at `at` and returns the end, or returns -1 without a defined effect on
 * buf when x is outside the fast path (the caller then writes String(x) itself). `data` views the
 * same bytes as buf.
 */
export function writeShortestDouble(x: number, buf: Uint8Array, data: DataView, at: number): number {
  const a = x < 0 ? -x : x;
  if (!(a >= 1e-6 && a < 1e15)) return -1; // also NaN; below 1e-6 String() switches to exponent notation
  bits[0] = a;
  const high = words[1]!;
  if ((high & 0xfffff) === 0 && words[0] === 0) return -1; // a power of two
  const e2 = (high >>> 20) - 1023;
  // n: the decimal exponent, 10^(n-1) ≤ a < 10^n. A wrong guess at a power of ten is caught below.
  let n = Math.floor((e2 + 1) * LOG10_2);
  if (n >= 0 ? a >= POW10[n]! : a * POW10[-n]! >= 1) n++;
  const q = 16 - n;
  if (q < 1 || q > 21) return -1;

  // a × 10^q = hi + lo exactly
  const t = POW10[q]!;
  const hi = a * t;
  const split = SPLITTER * a;
  const aHigh = split - (split - a);
  const aLow = a - aHigh;
  const lo = aHigh * POW10_HIGH[q]! - hi + aHigh * POW10_LOW[q]! + aLow * POW10_HIGH[q]! + aLow * POW10_LOW[q]!;
  bits[0] = 0;
  words[1] = (e2 + 970) << 20; // 2^(e2-53): half the gap between doubles at a
  const h = bits[0] * t;
  const whole = Math.floor(hi);
  const frac = hi - whole + lo; // a × 10^q = whole + frac
  let head = Math.floor(whole / 1e8);
  let tail = whole - head * 1e8; // the candidate's last 8 digits, before normalising below

  let offset = NONE; // of the 16-digit answer from `whole`
  if (h < 0.5 - MARGIN) {
    // at most one integer lies within h: the nearest
    const j = Math.round(frac);
    const d = Math.abs(j - frac);
    if (Math.abs(d - h) <= MARGIN) return -1;
    if (d < h) offset = j;
  } else {
    let best = 2;
    const last = Math.floor(frac + h + MARGIN);
    for (let j = Math.ceil(frac - h - MARGIN); j <= last; j++) {
      const d = Math.abs(j - frac);
      if (Math.abs(d - h) <= MARGIN) return -1;
      if (d > h) continue;
      if (((tail + j) | 0) % 10 === 0) {
        offset = j;
        break;
      }
      if (Math.abs(d - best) <= MARGIN) return -1;
      if (d < best) {
        offset = j;
        best = d;
      }
    }
  }

  let digits: number;
  if (offset !== NONE) {
    tail += offset;
    digits = 16;
  } else {
    const q17 = q + 1;
    const hi17 = a * POW10[q17]!;
    const lo17 = aHigh * POW10_HIGH[q17]! - hi17 + aHigh * POW10_LOW[q17]! + aLow * POW10_HIGH[q17]! + aLow * POW10_LOW[q17]!;
    let r = Math.round(lo17);
    const off = r - lo17;
    if (off === 0.5) {
      if (r % 2 !== 0) r--; // exactly halfway (hi17 ≥ 2^53 is even): to even
    } else if (Math.abs(off) >= 0.5 - MARGIN) return -1;
    head = Math.floor(hi17 / 1e8);
    tail = hi17 - head * 1e8 + r;
    digits = 17;
  }
  if (tail < 0) {
    head--;
    tail += 1e8;
  } else if (tail >= 1e8) {
    head++;
    tail -= 1e8;
  }
  if (head < POW10[digits - 9]! || head >= POW10[digits - 8]!) return -1; // a wrong guess of n

  if (x < 0) buf[at++] = 0x2d; // -
  // The digits go after room for "0." and leading zeros, or for the point.
  const start = at + (n <= 0 ? 2 - n : 1);
  let end = start + digits;
  put8(tail | 0, data, end);
  if (digits === 17) {
    const first = (head / 1e8) | 0;
    buf[start] = ZERO + first;
    put8((head - first * 1e8) | 0, data, end - 8);
  } else put8(head | 0, data, end - 8);
  while (buf[end - 1] === ZERO) end--;
  if (n <= 0) {
    buf[at] = ZERO;
    buf[at + 1] = 0x2e; // .
    for (let i = at + 2; i < start; i++) buf[i] = ZERO;
    return end;
  }
  for (let i = 0; i < n; i++) buf[at + i] = buf[start + i]!; // the integer part moves left over the spare byte
  if (start + n >= end) return at + n; // an integer
  buf[at + n] = 0x2e;
  return end;
}

/** The 8 digits of v < 1e8, zero-padded, ending before `end`. */
function put8(v: number, data: DataView, end: number): void {
  const high = (v / 10000) | 0;
  write4Digits(high, data, end - 8);
  write4Digits(v - high * 10000, data, end - 4);
}
