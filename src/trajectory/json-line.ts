/**
 * `JSON.stringify(row)` for a plain object row, encoded straight into a buffer. Training rows are
 * mostly long arrays of numbers (token ids, masks, logprobs): those are written digit by digit into
 * the buffer, without building the text as a JS string first (for a veRL row, stringify + UTF-8
 * encoding cost about three times as much). Everything else goes through JSON.stringify, so the
 * bytes are exactly those of `JSON.stringify(row)` with typed arrays as plain arrays.
 */
import { digitTarget, writeUint, writeUpTo4Digits, type DigitTarget } from './decimal-digits.js';
import { writeShortestDouble } from './shortest-double.js';

/** Bytes one array element may take at most: `-2147483648,` or a double's shortest form (≤ 24 chars) and a comma. */
const MAX_NUMBER_BYTES = 26;
/** UTF-8 needs at most 3 bytes per UTF-16 code unit. */
const MAX_BYTES_PER_CHAR = 3;

const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;

/** A place to encode into: `reserve(n)` makes room for n more bytes at `used` (it may swap the buffer). */
export interface ByteSink {
  buffer: Buffer;
  used: number;
  reserve(bytes: number): void;
}

/**
 * Appends `JSON.stringify(row)` to the sink, except that typed arrays are written as JSON arrays of
 * their numbers (JSON.stringify would write them as objects keyed by index). Rows that are not plain
 * objects go through JSON.stringify whole.
 */
export function writeJsonRow(row: unknown, out: ByteSink): void {
  if (typeof row !== 'object' || row === null || Array.isArray(row) || Object.getPrototypeOf(row) !== Object.prototype || 'toJSON' in row) {
    writeText(JSON.stringify(row) ?? 'null', out);
    return;
  }
  let first = true;
  writeText('{', out);
  for (const key of Object.keys(row)) {
    const value = (row as Record<string, unknown>)[key];
    const numbers = ArrayBuffer.isView(value) || isNumberArray(value);
    const json = numbers ? undefined : JSON.stringify(value);
    if (json === undefined && !numbers) continue; // undefined, functions, symbols: left out, as JSON.stringify does
    writeText(`${first ? '' : ','}${JSON.stringify(key)}:`, out);
    first = false;
    if (json !== undefined) writeText(json, out);
    else if (value instanceof Int32Array) writeInt32s(value, out);
    else if (value instanceof Uint8Array) writeBytes(value, out);
    else if (value instanceof Float64Array) writeFloat64s(value, out);
    else writeFloat64s(Float64Array.from(value as ArrayLike<number>), out); // plain arrays (short ones: call seqs) and other typed arrays
  }
  writeText('}', out);
}

/** `writeJsonRow` followed by a newline: one JSONL line. */
export function writeJsonLine(row: unknown, out: ByteSink): void {
  writeJsonRow(row, out);
  out.reserve(1);
  out.buffer[out.used++] = 0x0a;
}

/** `,0` and `,1` repeated: runs of zeros and ones (masks, the logprobs of observations) are copied from these. */
const RUN_TEMPLATE_ELEMENTS = 1 << 15;
const ZEROS = new Uint8Array(Buffer.from(',0'.repeat(RUN_TEMPLATE_ELEMENTS), 'latin1'));
const ONES = new Uint8Array(Buffer.from(',1'.repeat(RUN_TEMPLATE_ELEMENTS), 'latin1'));
/** Shorter runs are written byte by byte: copying has a fixed cost. */
const MIN_COPIED_RUN = 24;

function isNumberArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'number') return false;
  return true;
}

/*
 * The array writers below share one shape: room for the longest text of every element is reserved
 * up front, each element is written after a comma, and the first comma then becomes the bracket.
 * Each takes one array type only, so that the element reads in its loop stay monomorphic.
 */

/** Room for `elements` numbers, and views of the sink's buffer: stores into a plain Uint8Array are cheaper than into the Buffer subclass. */
function targetOf(out: ByteSink, elements: number): DigitTarget {
  out.reserve(2 + elements * MAX_NUMBER_BYTES);
  return digitTarget(out.buffer);
}

function close(buf: Uint8Array, open: number, at: number, n: number, out: ByteSink): void {
  if (n === 0)
    buf[at++] = 0x5b; // [
  else buf[open] = 0x5b;
  buf[at++] = 0x5d; // ]
  out.used = at;
}

/** Where the run of values equal to `values[from]` ends. */
function runEnd(values: Uint8Array | Float64Array, from: number): number {
  const v = values[from];
  let end = from + 1;
  while (end < values.length && values[end] === v) end++;
  return end;
}

/** `,v` written `count` times for v of 0 or 1. */
function writeRun(value: number, count: number, buf: Uint8Array, at: number): number {
  if (count >= MIN_COPIED_RUN) {
    const template = value === 0 ? ZEROS : ONES;
    while (count > 0) {
      const take = Math.min(count, RUN_TEMPLATE_ELEMENTS);
      buf.set(template.subarray(0, take * 2), at);
      at += take * 2;
      count -= take;
    }
    return at;
  }
  const digit = ZERO + value;
  for (; count > 0; count--) {
    buf[at++] = COMMA;
    buf[at++] = digit;
  }
  return at;
}

function writeInt32s(values: Int32Array, out: ByteSink): void {
  const n = values.length;
  const { bytes: buf, data } = targetOf(out, n);
  const open = out.used;
  let at = open;
  for (let i = 0; i < n; i++) {
    buf[at++] = COMMA;
    at = writeInt(values[i]!, buf, data, at);
  }
  close(buf, open, at, n, out);
}

/** Bytes are mostly masks: runs of 0 and 1. */
function writeBytes(values: Uint8Array, out: ByteSink): void {
  const n = values.length;
  const buf = targetOf(out, n).bytes;
  const open = out.used;
  let at = open;
  let i = 0;
  while (i < n) {
    const v = values[i]!;
    if (v <= 1) {
      const end = runEnd(values, i);
      at = writeRun(v, end - i, buf, at);
      i = end;
      continue;
    }
    buf[at++] = COMMA;
    at = writeUpTo4Digits(v, buf, at);
    i++;
  }
  close(buf, open, at, n, out);
}

/** Logprobs: runs of 0 (observations) between runs of the generated tokens' values. */
function writeFloat64s(values: Float64Array, out: ByteSink): void {
  const n = values.length;
  const { bytes: buf, data } = targetOf(out, n);
  const open = out.used;
  let at = open;
  let i = 0;
  while (i < n) {
    const v = values[i]!;
    if (v === 0 || v === 1) {
      const end = runEnd(values, i);
      at = writeRun(v, end - i, buf, at);
      i = end;
      continue;
    }
    buf[at++] = COMMA;
    at = writeDouble(v, buf, data, at);
    i++;
  }
  close(buf, open, at, n, out);
}

/** Any number as JSON writes it: integers digit by digit, others in their shortest round-trip form; non-finite ones are null. */
function writeDouble(v: number, buf: Uint8Array, data: DataView, at: number): number {
  if ((v | 0) === v) return writeInt(v, buf, data, at);
  const end = writeShortestDouble(v, buf, data, at);
  if (end >= 0) return end;
  const text = Number.isFinite(v) ? String(v) : 'null';
  for (let k = 0; k < text.length; k++) buf[at++] = text.charCodeAt(k);
  return at;
}

/** A 32-bit integer in decimal. */
function writeInt(value: number, buf: Uint8Array, data: DataView, at: number): number {
  if (value >= 0) return writeUint(value, buf, data, at);
  buf[at++] = MINUS;
  return writeUint(-value, buf, data, at);
}

function writeText(text: string, out: ByteSink): void {
  out.reserve(text.length * MAX_BYTES_PER_CHAR);
  out.used += out.buffer.write(text, out.used);
}
