/**
 * `JSON.stringify(row)` for a plain object row, encoded straight into a buffer. Training rows are
 * mostly long arrays of numbers (token ids, masks, logprobs): those are written digit by digit into
 * the buffer, without building the text as a JS string first (for a veRL row, stringify + UTF-8
 * encoding cost about three times as much). Everything else goes through JSON.stringify, so the
 * bytes are exactly the same as `JSON.stringify(row)`.
 */

/** Bytes one array element may take at most on the fast path: `-2147483648,` or a double's shortest form (≤ 24 chars) and a comma. */
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

/** Appends `JSON.stringify(row)` to the sink (rows that are not plain objects go through JSON.stringify whole). */
export function writeJsonRow(row: unknown, out: ByteSink): void {
  if (typeof row !== 'object' || row === null || Array.isArray(row) || Object.getPrototypeOf(row) !== Object.prototype || 'toJSON' in row) {
    writeText(JSON.stringify(row) ?? 'null', out);
    return;
  }
  let first = true;
  writeText('{', out);
  for (const key of Object.keys(row)) {
    const value = (row as Record<string, unknown>)[key];
    const numbers = isNumberArray(value);
    const json = numbers ? undefined : JSON.stringify(value);
    if (json === undefined && !numbers) continue; // undefined, functions, symbols: left out, as JSON.stringify does
    writeText(`${first ? '' : ','}${JSON.stringify(key)}:`, out);
    first = false;
    if (json !== undefined) writeText(json, out);
    else writeNumbers(value as number[], out);
  }
  writeText('}', out);
}

/** `,0` and `,1` repeated: runs of zeros and ones (masks, the logprobs of observations) are copied from these. */
const RUN_TEMPLATE_ELEMENTS = 1 << 15;
const ZEROS = new Uint8Array(Buffer.from(',0'.repeat(RUN_TEMPLATE_ELEMENTS), 'latin1'));
const ONES = new Uint8Array(Buffer.from(',1'.repeat(RUN_TEMPLATE_ELEMENTS), 'latin1'));
/** Shorter runs are written byte by byte: copying has a fixed cost. */
const MIN_COPIED_RUN = 24;
/** "00" … "99" */
const DIGIT_PAIRS = new Uint8Array(Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1'));

function isNumberArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'number') return false;
  return true;
}

function writeNumbers(values: number[], out: ByteSink): void {
  const n = values.length;
  out.reserve(2 + n * MAX_NUMBER_BYTES);
  // a plain Uint8Array view: element stores into it are cheaper than into the Buffer subclass
  const buf = new Uint8Array(out.buffer.buffer, out.buffer.byteOffset, out.buffer.length);
  let at = out.used;
  const open = at;
  // every element is written after a comma; the first comma then becomes the bracket
  let i = 0;
  while (i < n) {
    const v = values[i];
    if (v === 0 || v === 1) {
      let end = i + 1;
      while (end < n && values[end] === v) end++;
      let run = end - i;
      if (run >= MIN_COPIED_RUN) {
        const template = v === 0 ? ZEROS : ONES;
        while (run > 0) {
          const take = Math.min(run, RUN_TEMPLATE_ELEMENTS);
          buf.set(template.subarray(0, take * 2), at);
          at += take * 2;
          run -= take;
        }
      } else {
        const digit = ZERO + v;
        for (; run > 0; run--) {
          buf[at++] = COMMA;
          buf[at++] = digit;
        }
      }
      i = end;
      continue;
    }
    buf[at++] = COMMA;
    if ((v! | 0) === v) {
      at = writeInt(v, buf, at);
    } else {
      // shortest round-trip form, the same as JSON's; non-finite numbers are null in JSON
      const text = Number.isFinite(v) ? String(v) : 'null';
      for (let k = 0; k < text.length; k++) buf[at++] = text.charCodeAt(k);
    }
    i++;
  }
  if (n === 0) buf[at++] = 0x5b; // [
  else buf[open] = 0x5b;
  buf[at++] = 0x5d; // ]
  out.used = at;
}

/** A 32-bit integer in decimal, two digits at a time. */
function writeInt(value: number, buf: Uint8Array, at: number): number {
  let v = value;
  if (v < 0) {
    if (v === -2147483648) {
      for (const ch of '-2147483648') buf[at++] = ch.charCodeAt(0);
      return at;
    }
    buf[at++] = MINUS;
    v = -v;
  }
  if (v < 10) {
    buf[at++] = ZERO + v;
    return at;
  }
  const digits = v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
  let end = at + digits;
  const after = end;
  while (v >= 100) {
    const q = (v / 100) | 0;
    const pair = (v - q * 100) * 2;
    buf[--end] = DIGIT_PAIRS[pair + 1]!;
    buf[--end] = DIGIT_PAIRS[pair]!;
    v = q;
  }
  if (v >= 10) {
    buf[--end] = DIGIT_PAIRS[v * 2 + 1]!;
    buf[--end] = DIGIT_PAIRS[v * 2]!;
  } else {
    buf[--end] = ZERO + v;
  }
  return after;
}

function writeText(text: string, out: ByteSink): void {
  out.reserve(text.length * MAX_BYTES_PER_CHAR);
  out.used += out.buffer.write(text, out.used);
}
