/**
 * Delta storage of prompt token ids. An agent's prompt at turn n is, almost always, its prompt at
 * turn n-1 plus that turn's completion plus the new observation: stored in full, a rollout's ids
 * grow with the square of its length. A row instead keeps only the prompt's tokens after the first
 * `prompt_shared_len` tokens of an earlier call's prompt + completion (`prompt_base_seq`, same
 * rollout, smaller seq). Rows without a base hold the whole prompt, so old stores read unchanged.
 */

import { RecentCalls } from './recent-calls.js';
import { SpareBuffers } from './spare-buffers.js';
import type { TokenIds } from '../records/call.js';

/** Fewer shared tokens than this are not worth a reference. */
const MIN_SHARED_TOKENS = 32;
/** Earlier calls of one rollout considered as a base (sub-agents interleave several conversations). */
const CANDIDATES_PER_ROLLOUT = 4;
/** Bound on the tokens the writer keeps in memory (arrays' whole capacity); least recently written rollouts are forgotten first. */
const MAX_CACHED_TOKENS = 8_000_000;

export interface PromptDelta {
  baseSeq: number;
  sharedLen: number;
  /** The prompt tokens after the shared prefix. */
  suffix: TokenIds;
}

/** Remembers the last calls of each rollout as they are written, to store the next prompt as a delta. */
export class PromptDeltaWriter {
  private readonly spare = new SpareBuffers();
  /** prompt ++ completion of each remembered call, in a reused buffer */
  private readonly recent = new RecentCalls<Int32Array<ArrayBuffer>>(CANDIDATES_PER_ROLLOUT, MAX_CACHED_TOKENS, tokenCapacity, (tokens) =>
    this.spare.give(tokens.buffer),
  );

  /** The delta for a prompt about to be written, or undefined to store it whole. */
  compact(rolloutId: string, seq: number, prompt: TokenIds): PromptDelta | undefined {
    let baseSeq = 0;
    let bestShared = 0;
    for (const c of this.recent.of(rolloutId)) {
      if (c.seq >= seq) continue;
      const shared = sharedPrefix(c.value, prompt);
      if (shared > bestShared) [baseSeq, bestShared] = [c.seq, shared];
    }
    if (bestShared < MIN_SHARED_TOKENS) return undefined;
    return { baseSeq, sharedLen: bestShared, suffix: prompt.slice(bestShared) };
  }

  /** Drops every row remembered under this seq, as when its write failed: it must not serve as a base. */
  forget(rolloutId: string, seq: number): void {
    this.recent.forget(rolloutId, seq);
  }

  /** Call once the row is written, or goes into the same atomic write as the rows that may use it: only stored rows may serve as a base. */
  remember(rolloutId: string, seq: number, prompt: TokenIds, completion: readonly number[] | null): void {
    const length = prompt.length + (completion?.length ?? 0);
    const tokens = new Int32Array(this.spare.take(length * Int32Array.BYTES_PER_ELEMENT), 0, length);
    tokens.set(prompt);
    if (completion) tokens.set(completion, prompt.length);
    this.recent.remember(rolloutId, seq, tokens);
  }
}

/** Tokens an array from the spare buffers holds in memory (its whole buffer). */
function tokenCapacity(tokens: Int32Array): number {
  return tokens.buffer.byteLength / Int32Array.BYTES_PER_ELEMENT;
}

function sharedPrefix(a: Int32Array, b: TokenIds): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** A stored prompt as the row holds it. */
export interface StoredPrompt {
  seq: number;
  promptIds: Buffer | null;
  completionIds: Buffer | null;
  baseSeq: number | null;
  sharedLen: number | null;
}

/** Bytes [0, length) are one call's prompt + completion; the capacity beyond is free to append to. */
interface Base {
  buffer: Buffer;
  length: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * Rebuilds whole prompts from rows fed in seq order (int32 LE blobs, as stored). Keeps the
 * prompt + completion of every call that a later row may use as its base; given `lastUse` (base seq
 * → the last seq that refers to it) it drops them once passed, so memory holds only the bases still
 * ahead, and a row that is the last user of its base appends to the base's buffer instead of copying
 * it: rebuilding a linear conversation costs its new tokens only.
 */
export class PromptRebuilder {
  private readonly bases = new Map<number, Base>();

  constructor(private readonly lastUse?: Map<number, number>) {}

  /** The whole prompt blob of this row, or a string naming why it cannot be rebuilt. */
  rebuild(row: StoredPrompt): Buffer | null | string {
    let prompt = row.promptIds;
    let owned: Base | undefined;
    if (row.baseSeq !== null && row.baseSeq !== undefined) {
      const base = this.bases.get(row.baseSeq);
      const shared = (row.sharedLen ?? -1) * 4;
      const suffix = prompt ?? EMPTY;
      if (!base) return `prompt refers to call seq ${row.baseSeq}, which is missing or unreadable`;
      if (shared < 0 || shared > base.length) return `prompt shares ${row.sharedLen} tokens with call seq ${row.baseSeq}, which has ${base.length / 4}`;
      if (suffix.length % 4 !== 0) return `prompt_ids blob is ${suffix.length} bytes, not a whole number of int32 token ids`;
      if (this.lastUse?.get(row.baseSeq) === row.seq && shared === base.length) {
        owned = base; // nobody reads this base again: grow it in place
        this.bases.delete(row.baseSeq);
      } else {
        owned = { buffer: Buffer.allocUnsafe(capacityFor(shared + suffix.length)), length: shared };
        base.buffer.copy(owned.buffer, 0, 0, shared);
      }
      append(owned, suffix);
      prompt = owned.buffer.subarray(0, owned.length);
    }
    if (prompt && (this.lastUse === undefined || this.lastUse.has(row.seq))) {
      if (!owned) {
        owned = { buffer: Buffer.allocUnsafe(capacityFor(prompt.length)), length: prompt.length };
        prompt.copy(owned.buffer);
      }
      // Views handed out stay valid: appends write past them, or into a new buffer.
      if (row.completionIds) append(owned, row.completionIds);
      this.bases.set(row.seq, owned);
    }
    if (this.lastUse) {
      for (const seq of this.bases.keys()) if ((this.lastUse.get(seq) ?? -Infinity) <= row.seq) this.bases.delete(seq);
    }
    return prompt;
  }
}

function capacityFor(bytes: number): number {
  return Math.max(4096, Math.ceil(bytes * 1.5));
}

function append(base: Base, bytes: Buffer): void {
  if (base.length + bytes.length > base.buffer.length) {
    const grown = Buffer.allocUnsafe(capacityFor(base.length + bytes.length));
    base.buffer.copy(grown, 0, 0, base.length);
    base.buffer = grown;
  }
  bytes.copy(base.buffer, base.length);
  base.length += bytes.length;
}
