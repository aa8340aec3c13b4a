import { isRecord } from '../../util/is-record.js';
import type { TokenInKind } from './engine-request.js';

/** What an engine generated, or a part of it when streamed: its ids, their logprobs, and why it stopped (once it did). */
export interface EnginePiece {
  ids: number[];
  logprobs: number[];
  finish: 'stop' | 'length' | null;
}

/** A whole engine answer (or one streamed chunk of vLLM's) as a piece; throws naming what is missing. */
export function enginePiece(kind: TokenInKind, body: unknown): EnginePiece {
  return kind === 'sglang' ? sglangPiece(body) : vllmPiece(body);
}

function vllmPiece(body: unknown): EnginePiece {
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice)) return { ids: [], logprobs: [], finish: null };
  const ids = choice.token_ids;
  if (!isIdList(ids)) throw new Error('the engine answered without token_ids (is it vLLM ≥ 0.10.2, which takes return_token_ids?)');
  const logprobs = isRecord(choice.logprobs) && Array.isArray(choice.logprobs.token_logprobs) ? choice.logprobs.token_logprobs : [];
  return { ids, logprobs: logprobs.map((l) => (typeof l === 'number' ? l : Number.NaN)), finish: finishOf(choice.finish_reason) };
}

function sglangPiece(body: unknown): EnginePiece {
  const ids = isRecord(body) ? body.output_ids : undefined;
  if (!isIdList(ids)) throw new Error('the engine answered without output_ids');
  const meta = isRecord(body) && isRecord(body.meta_info) ? body.meta_info : {};
  const pairs = Array.isArray(meta.output_token_logprobs) ? meta.output_token_logprobs : [];
  const finish = isRecord(meta.finish_reason) ? meta.finish_reason.type : meta.finish_reason;
  return { ids, logprobs: pairs.map((p) => (Array.isArray(p) && typeof p[0] === 'number' ? p[0] : Number.NaN)), finish: finishOf(finish) ?? 'stop' };
}

function finishOf(value: unknown): 'stop' | 'length' | null {
  return value === 'length' ? 'length' : typeof value === 'string' && value.length > 0 ? 'stop' : null;
}

function isIdList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v));
}
