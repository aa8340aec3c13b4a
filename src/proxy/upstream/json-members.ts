/**
 * Byte spans of a JSON object's top-level members, found without parsing its values: enough to
 * rewrite a few top-level fields of a request while passing every other byte through as it came.
 */

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, isSpace, skipSpace } from '../../engine-wire/json-bytes.js';

/** One `"key": value` of the outermost object: `start` is its key's opening quote, `end` one past its value. */
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
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_BRACE) return undefined;
  i = skipSpace(bytes, i + 1);
  const members: JsonMember[] = [];
  if (bytes[i] === CLOSE_BRACE) return skipSpace(bytes, i + 1) === bytes.length ? members : undefined;
  for (;;) {
    if (bytes[i] !== QUOTE) return undefined;
    const start = i;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd < 0) return undefined;
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return undefined;
    i = skipSpace(bytes, i + 1);
    const end = valueEnd(bytes, i);
    if (end <= i) return undefined;
    members.push({ key: keyText(bytes, start, keyEnd), start, end });
    i = skipSpace(bytes, end);
    if (bytes[i] === CLOSE_BRACE) return skipSpace(bytes, i + 1) === bytes.length ? members : undefined;
    if (bytes[i] !== COMMA) return undefined;
    i = skipSpace(bytes, i + 1);
  }
}

/** One past the closing quote of the string opening at `i`; -1 if it never closes. */
function stringEnd(bytes: Uint8Array, i: number): number {
  for (let from = i + 1; ; ) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** One past the value starting at `i`; -1 if it is cut off. */
function valueEnd(bytes: Uint8Array, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) return stringEnd(bytes, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < bytes.length; ) {
      const c = bytes[j];
      if (c === QUOTE) {
        j = stringEnd(bytes, j);
        if (j < 0) return -1;
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return j + 1;
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
  return j;
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
