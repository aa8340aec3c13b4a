import type { SimModel } from './models/types.js';

/** What logprobs need of a model's vocabulary. */
type Vocabulary = Pick<SimModel, 'tokenText' | 'alternative'>;

/** vLLM's `logprobs.content[]` entry. */
export interface LogprobEntry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/** vLLM reports -inf as this. */
const MIN_LOGPROB = -9999;

/** A deterministic logprob in (-3, 0] for the token at this completion position; most are close to 0. */
export function tokenLogprob(id: number, position: number): number {
  const u = unitHash(id, position);
  return -3 * u * u;
}

/**
 * Entries for `ids`, the first at completion position `start`. With `topK` > 0, the sampled
 * token is listed with topK - 1 made-up alternatives sharing the remaining probability mass.
 */
export function logprobEntries(vocabulary: Vocabulary, ids: readonly number[], start: number, topK: number, asTokenIds: boolean): LogprobEntry[] {
  return ids.map((id, i) => {
    const position = start + i;
    const logprob = tokenLogprob(id, position);
    const top = [{ ...tokenField(vocabulary, id, asTokenIds), logprob }];
    const rest = 1 - Math.exp(logprob);
    for (let k = 1; k < topK; k++) {
      const alternative = vocabulary.alternative(id, position, k);
      top.push({ ...tokenField(vocabulary, alternative, asTokenIds), logprob: Math.max(MIN_LOGPROB, Math.log(rest / 2 ** k)) });
    }
    top.sort((a, b) => b.logprob - a.logprob);
    return { ...tokenField(vocabulary, id, asTokenIds), logprob, top_logprobs: topK > 0 ? top : [] };
  });
}

function tokenField(vocabulary: Vocabulary, id: number, asTokenIds: boolean): { token: string; bytes: number[] } {
  const token = asTokenIds ? `token_id:${id}` : vocabulary.tokenText(id);
  return { token, bytes: [...Buffer.from(token, 'utf8')] };
}

/** [0, 1) from two integers (murmur3's finalizer over a simple combination). */
function unitHash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}
