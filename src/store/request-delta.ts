/**
 * Delta storage of request bodies. A harness sends its whole conversation with every call: stored
 * whole, a rollout's requests grow with the square of its length. A row instead keeps only the text
 * after the first `request_shared_len` characters of an earlier call's request (`request_base_seq`,
 * same rollout, smaller seq). When a request's message list (chat `messages`, Responses `input`,
 * Anthropic `messages`) extends an earlier call's, their JSON texts agree up to the end of the shared
 * messages, so the stored suffix is the appended messages plus the fields after the list. The delta
 * is taken on the text, not on parsed messages: the harness's own bytes come back exactly, whatever
 * the protocol. Rows without a base hold the whole request, so old stores read unchanged.
 */

import { RecentCalls } from './recent-calls.js';
import { SpareBuffers } from './spare-buffers.js';

/** Fewer shared characters than this are not worth a reference. */
const MIN_SHARED_CHARS = 256;
/** Earlier calls of one rollout considered as a base (sub-agents interleave several conversations). */
const CANDIDATES_PER_ROLLOUT = 4;
/** Bound on the request text the writer keeps in memory (64 MiB); least recently written rollouts are forgotten first. */
const MAX_CACHED_CHARS = 32 * 1024 * 1024;
/** Bytes per character in the cache: texts are kept as UTF-16 code units, so an offset there is an offset in the string. */
const UNIT_BYTES = 2;

export interface RequestDelta {
  baseSeq: number;
  sharedLen: number;
  /** The request text after the shared prefix. */
  suffix: string;
}

/**
 * Remembers the last requests of each rollout as they are written, to store the next one as a delta.
 * The texts are kept as UTF-16 in reused buffers, not as strings: a request text lives a second or
 * more in the cache, long enough for V8 to promote it, and a few KB of old-generation garbage per
 * call brought a full GC every few thousand calls.
 */
export class RequestDeltaWriter {
  private readonly spare = new SpareBuffers();
  private readonly recent = new RecentCalls<Buffer>(
    CANDIDATES_PER_ROLLOUT,
    MAX_CACHED_CHARS,
    (units) => units.buffer.byteLength / UNIT_BYTES,
    (units) => this.spare.give(units.buffer as ArrayBuffer),
  );
  /** The text `compact` last encoded, which `remember` keeps when it is called for the same text. */
  private encoded: { text: string; units: Buffer } | undefined;

  /** The delta for a request about to be written, or undefined to store it whole. */
  compact(rolloutId: string, seq: number, text: string): RequestDelta | undefined {
    const list = this.recent.of(rolloutId);
    if (list.length === 0 || text.length < MIN_SHARED_CHARS) return undefined;
    const units = this.utf16(text);
    this.encoded = { text, units };
    let baseSeq = 0;
    let bestShared = 0;
    // newest first: the conversation this call continues is usually the last one written
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i]!;
      if (c.seq >= seq || c.value.length / UNIT_BYTES <= bestShared) continue;
      const shared = sharedPrefixLength(c.value, units, text);
      if (shared > bestShared) [baseSeq, bestShared] = [c.seq, shared];
    }
    if (bestShared < MIN_SHARED_CHARS) return undefined;
    return { baseSeq, sharedLen: bestShared, suffix: text.slice(bestShared) };
  }

  /** Drops every request remembered under this seq, as when its write failed: it must not serve as a base. */
  forget(rolloutId: string, seq: number): void {
    this.recent.forget(rolloutId, seq);
  }

  /** Call once the row is written, or goes into the same atomic write as the rows that may use it. */
  remember(rolloutId: string, seq: number, text: string): void {
    const units = this.encoded?.text === text ? this.encoded.units : this.utf16(text);
    this.encoded = undefined;
    this.recent.remember(rolloutId, seq, units);
  }

  /** `text` as UTF-16 in a buffer from the spares. */
  private utf16(text: string): Buffer {
    const bytes = text.length * UNIT_BYTES;
    const units = Buffer.from(this.spare.take(bytes), 0, bytes);
    units.write(text, 'utf16le');
    return units;
  }
}

/** Bytes compared at once (native memcmp) before narrowing down to the character that differs. */
const BLOCKS = [32768, 2048, 128];

/**
 * Length, in characters, of the common prefix of two texts given as UTF-16 (`next` also as the
 * string), cut back to just after a character that is ASCII and not a word character. So the cut
 * never splits a surrogate pair (the suffix is stored as UTF-8), and a word such as `image` never
 * spans the cut: `requestContains` can test the stored pieces one by one.
 */
export function sharedPrefixLength(base: Buffer, next: Buffer, nextText: string): number {
  const n = Math.min(base.length, next.length);
  let i = 0;
  for (const block of BLOCKS) {
    while (i + block <= n && base.compare(next, i, i + block, i, i + block) === 0) i += block;
  }
  while (i < n && base[i] === next[i]) i++;
  let chars = i >> 1; // a difference in a character's second byte leaves that character out
  while (chars > 0 && !isCutPoint(nextText.charCodeAt(chars - 1))) chars--;
  return chars;
}

function isCutPoint(code: number): boolean {
  return code < 128 && !isWordChar(code);
}

export function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** A stored request as the row holds it. */
export interface StoredRequest {
  seq: number;
  text: string;
  baseSeq: number | null;
  sharedLen: number | null;
}

/**
 * Rebuilds whole request texts from rows fed in seq order. Keeps the text of every row a later row
 * may use as its base; given `lastUse` (base seq → the last seq that refers to it) it drops them once
 * passed. Joining is cheap: V8 concatenates long strings by reference.
 */
export class RequestRebuilder {
  private readonly texts = new Map<number, string>();

  constructor(private readonly lastUse?: Map<number, number>) {}

  /** The whole request text of this row, or `{ problem }` naming why it cannot be rebuilt. */
  rebuild(row: StoredRequest): string | { problem: string } {
    let text = row.text;
    if (row.baseSeq !== null) {
      const base = this.texts.get(row.baseSeq);
      if (base === undefined) return { problem: `request refers to call seq ${row.baseSeq}, which is missing or unreadable` };
      const shared = row.sharedLen ?? -1;
      if (shared < 0 || shared > base.length)
        return { problem: `request shares ${row.sharedLen} characters with call seq ${row.baseSeq}, whose request has ${base.length}` };
      text = base.slice(0, shared) + text;
    }
    if (this.lastUse === undefined || this.lastUse.has(row.seq)) this.texts.set(row.seq, text);
    if (this.lastUse) {
      for (const seq of this.texts.keys()) if ((this.lastUse.get(seq) ?? -Infinity) <= row.seq) this.texts.delete(seq);
    }
    return text;
  }
}
