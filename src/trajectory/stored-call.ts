import { endianness } from 'node:os';
import { decodeFloats, decodeIds } from '../store/codec.js';
import type { Store, StoredCallRow } from '../store/store.js';
import type { CallLabel, ProtocolName } from '../records/call.js';
import { CorruptCallError, type TrajectoryCall } from './trajectory-call.js';

const LABELS = new Set(['policy', 'helper', 'count_tokens']);

/**
 * A stored call row as the builder reads it. Blob lengths are checked before decoding and JSON is
 * parsed where it is read, so a damaged row fails with an error naming its rollout and seq rather
 * than a bare RangeError or SyntaxError. The whole prompt is decoded only if it is read.
 */
export function storedCall(store: Store, row: StoredCallRow): TrajectoryCall {
  return new StoredCall(store, row);
}

class StoredCall implements TrajectoryCall {
  readonly rolloutId: string;
  readonly seq: number;
  readonly label: CallLabel;
  readonly protocol: ProtocolName;
  readonly status: number;
  readonly error: string | null;
  readonly completionTokenIds: ArrayLike<number> | null;
  readonly logprobs: ArrayLike<number> | null;
  readonly finishReason: string | null;
  readonly missingTokenIds: boolean;
  readonly weightVersion: string | null;
  readonly promptDelta: { baseSeq: number; sharedLen: number; suffix: ArrayLike<number> } | undefined;
  private decodedPrompt: ArrayLike<number> | null | undefined;
  private parsedResponse: { value: unknown } | undefined;

  constructor(
    private readonly store: Store,
    private readonly row: StoredCallRow,
  ) {
    this.rolloutId = row.rollout_id;
    this.seq = row.seq;
    if (row.problem) throw this.corrupt(row.problem);
    if (!LABELS.has(row.label)) throw this.corrupt(`unknown label "${row.label}"`);
    const storedPrompt = row.stored_prompt_ids ?? row.prompt_ids;
    if (storedPrompt && storedPrompt.length % 4 !== 0)
      throw this.corrupt(`prompt_ids blob is ${storedPrompt.length} bytes, not a whole number of int32 token ids`);
    if (row.completion_ids && row.completion_ids.length % 4 !== 0) {
      throw this.corrupt(`completion_ids blob is ${row.completion_ids.length} bytes, not a whole number of int32 token ids`);
    }
    if (row.logprobs && row.logprobs.length % 8 !== 0)
      throw this.corrupt(`logprobs blob is ${row.logprobs.length} bytes, not a whole number of float64 values`);
    this.label = row.label;
    this.protocol = row.protocol;
    this.status = row.status;
    this.error = row.error;
    this.completionTokenIds = int32s(row.completion_ids);
    this.logprobs = float64s(row.logprobs);
    this.finishReason = row.finish_reason;
    this.missingTokenIds = row.missing_token_ids === 1;
    this.weightVersion = row.weight_version ?? null;
    this.promptDelta =
      row.prompt_base_seq !== null && row.prompt_shared_len !== null && row.stored_prompt_ids !== undefined
        ? { baseSeq: row.prompt_base_seq, sharedLen: row.prompt_shared_len, suffix: int32s(row.stored_prompt_ids) ?? [] }
        : undefined;
  }

  get promptTokenIds(): ArrayLike<number> | null {
    if (this.decodedPrompt === undefined) {
      const blob = this.row.whole_prompt ? this.row.whole_prompt() : this.row.prompt_ids;
      if (typeof blob === 'string') throw this.corrupt(blob);
      this.decodedPrompt = int32s(blob);
    }
    return this.decodedPrompt;
  }

  async request(): Promise<unknown> {
    const json = await this.store.callRequestJson(this.rolloutId, this.seq);
    if (json === undefined || json === null) throw this.corrupt('the call row disappeared while it was being read');
    return this.parse(json, 'request');
  }

  async requestIfContains(text: string): Promise<unknown> {
    // the scan looked for this word in the pieces the request is stored as
    if (text === 'image' && this.row.request_may_mention_image === false) return undefined;
    const json = await this.store.callRequestJson(this.rolloutId, this.seq, text);
    if (json === undefined) throw this.corrupt('the call row disappeared while it was being read');
    return json === null ? undefined : this.parse(json, 'request');
  }

  async response(): Promise<unknown> {
    if (!this.parsedResponse) {
      const json = await this.store.callResponseJson(this.rolloutId, this.seq);
      if (json === undefined) throw this.corrupt('the call row disappeared while it was being read');
      this.parsedResponse = { value: json === null ? null : this.parse(json, 'response') };
    }
    return this.parsedResponse.value;
  }

  async responseIfContains(text: string): Promise<unknown> {
    // the scan looked for this word in the response
    if (!this.parsedResponse && text === 'weight_version' && this.row.response_mentions_weight_version !== 1) return undefined;
    return this.response();
  }

  private parse(text: string, what: string): unknown {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw this.corrupt(`${what} is not valid JSON (${(err as Error).message})`);
    }
  }

  private corrupt(problem: string): CorruptCallError {
    return new CorruptCallError(this.rolloutId, this.seq, problem);
  }
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** Blobs are int32 little-endian: read in place through a typed-array view where the platform allows. */
function int32s(blob: Buffer | null | undefined): ArrayLike<number> | null {
  if (!blob) return null;
  if (!LITTLE_ENDIAN) return decodeIds(blob);
  if (blob.byteOffset % 4 === 0) return new Int32Array(blob.buffer, blob.byteOffset, blob.length / 4);
  return new Int32Array(new Uint8Array(blob).buffer);
}

function float64s(blob: Buffer | null): ArrayLike<number> | null {
  if (!blob) return null;
  if (!LITTLE_ENDIAN) return decodeFloats(blob);
  if (blob.byteOffset % 8 === 0) return new Float64Array(blob.buffer, blob.byteOffset, blob.length / 8);
  return new Float64Array(new Uint8Array(blob).buffer);
}
