/**
 * Reads a whole `chat.completion`'s `prompt_token_ids` straight from its bytes into an Int32Array,
 * and leaves the rest of the JSON to `JSON.parse`. The ids are most of an answer's bytes (a 48 KB
 * request comes back with ~150 KB of them): decoding them to a string and parsing that into a JS
 * array took more CPU than everything else the proxy does for a call, and made the largest garbage.
 */

import type { ChatBody } from './chat-wire.js';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, MINUS, NINE, OPEN_BRACE, OPEN_BRACKET, QUOTE, ZERO, isSpace, skipSpace } from './json-bytes.js';

const KEY = Buffer.from('"prompt_token_ids"');
const NULL = Buffer.from('null');
/** Token ids fit in 32 bits; a longer run of digits is not an id list this reader handles. */
const MAX_ID_DIGITS = 10;

/**
 * Parses an upstream answer (a whole `chat.completion`, or one stream chunk) that must be a JSON
 * object; its top-level `prompt_token_ids`, when a list of 32-bit integers, comes back as an
 * Int32Array. Throws what `JSON.parse` throws, or when the value is not an object. Takes `bytes`
 * over: the id list is cut out of them in place, so what is parsed is one flat string.
 */
export function parseAnswer(bytes: Buffer): ChatBody {
  const list = topLevelIdList(bytes);
  const parsed: unknown = JSON.parse(list ? withoutList(bytes, list) : bytes.toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
  const body = parsed as ChatBody;
  if (list) body.prompt_token_ids = list.ids;
  return body;
}

/** The text of `bytes` with `null` for the list: written over the list's bytes when it is long enough (`[1]` is not). */
function withoutList(bytes: Buffer, list: { start: number; end: number }): string {
  if (list.end - list.start < NULL.length) return `${bytes.toString('utf8', 0, list.start)}null${bytes.toString('utf8', list.end)}`;
  NULL.copy(bytes, list.start);
  bytes.copyWithin(list.start + NULL.length, list.end);
  return bytes.toString('utf8', 0, bytes.length - (list.end - list.start - NULL.length));
}

/** The ids and the byte range of their `[...]`, or undefined for anything but a top-level list of 32-bit integers. */
function topLevelIdList(bytes: Buffer): { ids: Int32Array; start: number; end: number } | undefined {
  // vLLM writes the key once, near the end; inside a JSON string its quotes would be escaped
  const key = bytes.lastIndexOf(KEY);
  if (key < 0) return undefined;
  let at = skipSpace(bytes, key + KEY.length);
  if (bytes[at] !== COLON) return undefined;
  at = skipSpace(bytes, at + 1);
  if (bytes[at] !== OPEN_BRACKET) return undefined;
  const start = at;
  const close = bytes.indexOf(CLOSE_BRACKET, start);
  if (close < 0 || !closesTopLevel(bytes, close + 1)) return undefined;
  // at most one id per two bytes ("1,"); read into a reused scratch array, copied out at its size
  const ids = scratchFor(((close - start) >> 1) + 1);
  let count = 0;
  at = skipSpace(bytes, at + 1);
  if (bytes[at] === CLOSE_BRACKET) return { ids: new Int32Array(0), start, end: at + 1 };
  for (;;) {
    const negative = bytes[at] === MINUS;
    if (negative) at++;
    let value = 0;
    const first = at;
    let c = bytes[at] as number;
    // `close` bounds the loop: the list's own `]` is not a digit
    for (; c >= ZERO && c <= NINE; c = bytes[++at] as number) value = value * 10 + (c - ZERO);
    if (at === first || at - first > MAX_ID_DIGITS) return undefined;
    if (negative) value = -value;
    if (value > 0x7fffffff || value < -0x80000000) return undefined;
    ids[count++] = value;
    // vLLM writes `1,2,3`: the space between is the rare case
    if (c === COMMA) {
      at++;
      if (isSpace(bytes[at])) at = skipSpace(bytes, at);
      continue;
    }
    at = skipSpace(bytes, at);
    if (bytes[at] === CLOSE_BRACKET) return { ids: ids.slice(0, count), start, end: at + 1 };
    if (bytes[at] !== COMMA) return undefined; // a fraction, an exponent, a string: not an id list
    at = skipSpace(bytes, at + 1);
  }
}

let scratch = new Int32Array(0);
/** Kept between calls up to this many ids (4 MB); a larger list gets an array of its own. */
const MAX_SCRATCH_IDS = 1 << 20;

function scratchFor(size: number): Int32Array {
  if (size <= scratch.length) return scratch;
  const array = new Int32Array(Math.max(size, scratch.length * 2));
  if (array.length <= MAX_SCRATCH_IDS) scratch = array;
  return array;
}

/**
 * Whether the object that holds a member ending at `from` is the top-level one: what follows it
 * closes exactly one level, at the last byte. That holds for a JSON text exactly when the member
 * is at depth 1, and whatever is not JSON, `JSON.parse` of the rest refuses. The tail after vLLM's
 * id list is a few bytes, where a scan from the start would cross the whole answer.
 */
function closesTopLevel(bytes: Buffer, from: number): boolean {
  let depth = 1;
  let inString = false;
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return skipSpace(bytes, i + 1) === bytes.length;
  }
  return false;
}
