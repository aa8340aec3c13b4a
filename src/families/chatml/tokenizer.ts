import { SPECIAL_TOKENS, TEXT_ID_OFFSET, isSpecialId } from './special-tokens.js';

/**
 * Deterministic, invertible tokenizer of the simulated model. Text is split into GPT-2-style
 * pieces; each piece becomes tokens of whole code points packed by their UTF-8 bytes (up to 3
 * bytes a token; a 4-byte code point is a token of its own). Ids are pure arithmetic, so they are
 * the same in every process, and `decode(encode(s)) === s` for every string (lone surrogates
 * included: they are packed as the 3 bytes UTF-8 would give them if it allowed them).
 *
 * `encode` never produces special tokens: text that spells `<|im_end|>` stays text. The chat
 * template inserts special ids itself.
 */

const PRE_TOKENIZE = /'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Start of the value range for groups of 1, 2 and 3 bytes, then for 4-byte code points. */
const GROUP_BASE = [0, 0, 0x100, 0x100 + 0x10000] as const;
const FOUR_BYTE_BASE = 0x100 + 0x10000 + 0x1000000;
const MAX_CODE_POINT = 0x10ffff;

export const VOCAB_SIZE = TEXT_ID_OFFSET + FOUR_BYTE_BASE + (MAX_CODE_POINT - 0x10000 + 1);

export function preTokenize(text: string): string[] {
  const pieces: string[] = [];
  let end = 0;
  for (const match of text.matchAll(PRE_TOKENIZE)) {
    // The alternatives cover every character; this only guards losslessness if one slipped through.
    if (match.index > end) pieces.push(text.slice(end, match.index));
    pieces.push(match[0]);
    end = match.index + match[0].length;
  }
  if (end < text.length) pieces.push(text.slice(end));
  return pieces;
}

export function encode(text: string): number[] {
  const ids: number[] = [];
  for (const piece of preTokenize(text)) encodePiece(piece, ids);
  return ids;
}

function encodePiece(piece: string, out: number[]): void {
  let packed = 0;
  let size = 0;
  const flush = (): void => {
    if (size === 0) return;
    out.push(TEXT_ID_OFFSET + GROUP_BASE[size as 1 | 2 | 3] + packed);
    packed = 0;
    size = 0;
  };
  for (const char of piece) {
    const cp = char.codePointAt(0) as number;
    if (cp >= 0x10000) {
      flush();
      out.push(TEXT_ID_OFFSET + FOUR_BYTE_BASE + (cp - 0x10000));
      continue;
    }
    const bytes = utf8Bytes(cp);
    if (size + bytes.length > 3) flush();
    for (const b of bytes) packed = packed * 256 + b;
    size += bytes.length;
  }
  flush();
}

/** UTF-8 bytes of a code point below 0x10000 (surrogates encoded like any other 3-byte value). */
function utf8Bytes(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}

/** The text a token stands for (special tokens give their marker, e.g. `<|im_end|>`). */
export function tokenText(id: number): string {
  if (isSpecialId(id)) return SPECIAL_TOKENS[id] as string;
  const value = id - TEXT_ID_OFFSET;
  if (!Number.isInteger(id) || value < 0 || id >= VOCAB_SIZE) throw new RangeError(`unknown token id ${id}`);
  if (value >= FOUR_BYTE_BASE) return String.fromCodePoint(value - FOUR_BYTE_BASE + 0x10000);
  const size = value >= GROUP_BASE[3] ? 3 : value >= GROUP_BASE[2] ? 2 : 1;
  let packed = value - GROUP_BASE[size];
  const bytes: number[] = [];
  for (let i = 0; i < size; i++) {
    bytes.unshift(packed & 0xff);
    packed >>= 8;
  }
  const text = decodeBytes(bytes);
  if (text === undefined) throw new RangeError(`unknown token id ${id}: not a sequence of whole characters`);
  return text;
}

/** Strict decoding of 1–3 bytes into code points below 0x10000; undefined when malformed or overlong. */
function decodeBytes(bytes: number[]): string | undefined {
  let text = '';
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    const length = lead < 0x80 ? 1 : (lead & 0xe0) === 0xc0 ? 2 : (lead & 0xf0) === 0xe0 ? 3 : 0;
    if (length === 0 || i + length > bytes.length) return undefined;
    let cp = length === 1 ? lead : lead & (length === 2 ? 0x1f : 0x0f);
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k] as number;
      if ((next & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (next & 0x3f);
    }
    if ((length === 2 && cp < 0x80) || (length === 3 && cp < 0x800)) return undefined;
    text += String.fromCharCode(cp);
    i += length;
  }
  return text;
}

export function decode(ids: readonly number[]): string {
  let text = '';
  for (const id of ids) text += tokenText(id);
  return text;
}
