/**
 * Byte spans of a JSON object's members (and an array's items), found without parsing their values:
 * enough to rewrite a few fields of a request, or drop a few from an answer, while passing every
 * other byte through as it came.
 */

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  MINUS,
  NINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  ZERO,
  isSpace,
  skipSpace,
} from '../../engine-wire/json-bytes.js';

const DOT = 0x2e;
const PLUS = 0x2b;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** One `"key": value` of an object: `start` is its key's opening quote, `end` one past its value. */
export interface JsonMember {
  key: string;
  start: number;
  end: number;
}

/**
 * The outermost object's members in order, or undefined when `bytes` is not one JSON object. The
 * scan trusts nothing: on anything it does not expect it gives up (undefined) rather than guess.
 */
export function topLevelMembers(bytes: Buffer): JsonMember[] | undefined {
  const members: JsonMember[] = [];
  const end = walkObject(bytes, skipSpace(bytes, 0), (key, start, valueStart) => {
    const end = valueEnd(bytes, valueStart);
    members.push({ key, start, end });
    return end;
  });
  return end >= 0 && skipSpace(bytes, end) === bytes.length ? members : undefined;
}

/**
 * Walks the members of the object opening at `open`: `member` gets each key, its opening quote and
 * where its value starts, and returns one past the value (negative: give up). Returns one past the
 * closing brace, or -1 when the bytes there are not one object.
 */
export function walkObject(bytes: Buffer, open: number, member: (key: string, start: number, valueStart: number) => number): number {
  if (bytes[open] !== OPEN_BRACE) return -1;
  let i = skipSpace(bytes, open + 1);
  if (bytes[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) return -1;
    const start = i;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd < 0) return -1;
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return -1;
    const valueStart = skipSpace(bytes, i + 1);
    const end = member(keyText(bytes, start, keyEnd), start, valueStart);
    if (end <= valueStart) return -1;
    i = skipSpace(bytes, end);
    if (bytes[i] === CLOSE_BRACE) return i + 1;
    if (bytes[i] !== COMMA) return -1;
    i = skipSpace(bytes, i + 1);
  }
}

/** Like `walkObject`, for the items of the array opening at `open`: `item` returns one past the item it starts. */
export function walkArray(bytes: Buffer, open: number, item: (start: number) => number): number {
  if (bytes[open] !== OPEN_BRACKET) return -1;
  let i = skipSpace(bytes, open + 1);
  if (bytes[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    const end = item(i);
    if (end <= i) return -1;
    i = skipSpace(bytes, end);
    if (bytes[i] === CLOSE_BRACKET) return i + 1;
    if (bytes[i] !== COMMA) return -1;
    i = skipSpace(bytes, i + 1);
  }
}

/** Keys and logprob tokens are short: read this far byte by byte before asking `indexOf` (a native call). */
const SHORT_STRING_BYTES = 64;

/** One past the closing quote of the string opening at `i`; -1 if it never closes. */
function stringEnd(bytes: Uint8Array, i: number): number {
  let from = i + 1;
  const stop = Math.min(bytes.length, from + SHORT_STRING_BYTES);
  for (; from < stop; from++) {
    const c = bytes[from];
    if (c === QUOTE) return from + 1;
    if (c === BACKSLASH) break;
  }
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Every other byte's role is 0 (the table's fill): nothing to do. */
const STRING = 1;
const OPENS = 2;
const CLOSES = 3;
/** What each byte is to a scan for the end of a container: one table load per byte instead of five comparisons. */
const BYTE_ROLE = new Uint8Array(256);
BYTE_ROLE[QUOTE] = STRING;
BYTE_ROLE[OPEN_BRACE] = OPENS;
BYTE_ROLE[OPEN_BRACKET] = OPENS;
BYTE_ROLE[CLOSE_BRACE] = CLOSES;
BYTE_ROLE[CLOSE_BRACKET] = CLOSES;

/** One past the JSON value starting at `i`; -1 if it is cut off or not a value. */
export function valueEnd(bytes: Uint8Array, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) return stringEnd(bytes, i);
  if (first === OPEN_BRACKET) {
    // a flat list (token ids, numbers) ends at its first `]` when nothing before it opens a string or a container
    const close = bytes.indexOf(CLOSE_BRACKET, i);
    if (close > i) {
      const inside = bytes.subarray(i + 1, close);
      if (inside.indexOf(QUOTE) < 0 && inside.indexOf(OPEN_BRACKET) < 0 && inside.indexOf(OPEN_BRACE) < 0) return close + 1;
    }
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i, n = bytes.length; j < n;) {
      const role = BYTE_ROLE[bytes[j] as number];
      if (role === STRING) {
        j = stringEnd(bytes, j);
        if (j < 0) return -1;
        continue;
      }
      if (role === OPENS) depth++;
      else if (role === CLOSES && --depth === 0) return j + 1;
      j++;
    }
    return -1;
  }
  // a number, true, false or null: up to the next delimiter
  let j = i;
  while (j < bytes.length) {
    const c = bytes[j];
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
    j++;
  }
  return isLiteral(bytes, i, j) ? j : -1;
}

const LITERALS = ['true', 'false', 'null'].map((word) => Buffer.from(word));

/** A number's characters, or one of JSON's three words (a number's exact grammar is left to whoever parses it). */
function isLiteral(bytes: Uint8Array, start: number, end: number): boolean {
  if (end <= start) return false;
  const first = bytes[start] as number;
  if (first === MINUS || (first >= ZERO && first <= NINE)) {
    for (let k = start + 1; k < end; k++) {
      const c = bytes[k] as number;
      if (!((c >= ZERO && c <= NINE) || c === DOT || c === LOWER_E || c === UPPER_E || c === PLUS || c === MINUS)) return false;
    }
    return true;
  }
  return LITERALS.some((word) => word.length === end - start && word.every((c, k) => bytes[start + k] === c));
}

function keyText(bytes: Buffer, start: number, end: number): string {
  const key = bytes.toString('utf8', start + 1, end - 1);
  // an escaped key ("mod\u0065l") means what JSON says it means
  return key.includes('\\') ? (JSON.parse(bytes.toString('utf8', start, end)) as string) : key;
}

const COMMA_BYTES = Buffer.from(',');
const CLOSE_BYTES = Buffer.from('}');

/**
 * The object in `bytes` with the top-level fields of `set` written in front and every other member
 * passed through as it came (runs of kept members as one slice of `bytes`, so nothing is copied).
 * A key of `set` replaces each member of that name, duplicates too; one whose value is undefined is
 * dropped, as JSON.stringify drops it.
 */
export function withTopLevelFields(bytes: Buffer, members: readonly JsonMember[], set: Record<string, unknown>): Buffer[] {
  const head = JSON.stringify(set);
  const chunks: Buffer[] = [Buffer.from(head.slice(0, -1))];
  let written = head.length > 2;
  let runStart = -1;
  let runEnd = -1;
  const endRun = () => {
    if (runStart < 0) return;
    if (written) chunks.push(COMMA_BYTES);
    chunks.push(bytes.subarray(runStart, runEnd));
    written = true;
    runStart = -1;
  };
  for (const member of members) {
    if (Object.hasOwn(set, member.key)) {
      endRun();
      continue;
    }
    if (runStart < 0) runStart = member.start;
    runEnd = member.end;
  }
  endRun();
  chunks.push(CLOSE_BYTES);
  return chunks;
}
