import { isUtf8 } from 'node:buffer';
import type { ChatRequestBody } from '../../engine-wire/chat-wire.js';
import type { ForcedSampling, UpstreamKind } from '../types.js';
import { topLevelMembers, withTopLevelFields } from './json-members.js';

/** Fields each kind of server understands for returning token ids (OpenAI rejects unknown fields). */
const TOKEN_ID_FIELDS: Record<UpstreamKind, Record<string, true>> = {
  vllm: { return_token_ids: true },
  sglang: { return_token_ids: true, return_prompt_token_ids: true },
  'openai-compatible': {},
};

/**
 * The body actually sent upstream: the protocol's Chat Completions request plus token capture
 * (ids, logprobs, usage in streams) and the run's forced sampling settings.
 */
export function upstreamBody(request: ChatRequestBody, kind: UpstreamKind, sampling: ForcedSampling | undefined): ChatRequestBody {
  const body: ChatRequestBody = { ...request, ...TOKEN_ID_FIELDS[kind], logprobs: true };
  if (request.stream === true) {
    const clientOptions = typeof request.stream_options === 'object' ? request.stream_options : {};
    body.stream_options = { ...clientOptions, include_usage: true };
  }
  if (sampling?.model !== undefined) body.model = sampling.model;
  if (sampling?.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling?.maxTokens !== undefined) capMaxTokens(body, sampling.maxTokens);
  if (sampling?.fields) Object.assign(body, forcedFields(request, sampling.fields));
  if (sampling?.topLogprobs !== undefined)
    body.top_logprobs = Math.max(sampling.topLogprobs, typeof request.top_logprobs === 'number' ? request.top_logprobs : 0);
  return body;
}

/** The forced sampling fields over the request's: `stop` strings join the harness's own (an answer ends at either). */
export function forcedFields(request: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  if (fields.stop !== undefined) {
    const asList = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    out.stop = [...new Set([...asList(request.stop), ...asList(fields.stop)])];
  }
  return out;
}

/**
 * `upstreamBody` as bytes, when `request` is the object parsed from `source` (the harness's body):
 * the fields the proxy sets go in front, every other member is the harness's own bytes. The same
 * JSON as `JSON.stringify(upstreamBody(…))`, except that what the proxy leaves alone reaches the
 * upstream as written (a seed past 2^53 keeps its digits), without serialising the request again
 * and with no string of it on the V8 heap. Undefined when `source` is not one JSON object in valid
 * UTF-8: the caller serialises instead (invalid bytes reached the parsed request as U+FFFD, so
 * they must not pass).
 */
export function upstreamBodyBytes(request: ChatRequestBody, source: Buffer, kind: UpstreamKind, sampling: ForcedSampling | undefined): Buffer[] | undefined {
  if (!isUtf8(source)) return undefined;
  const members = topLevelMembers(source);
  if (!members) return undefined;
  const body = upstreamBody(request, kind, sampling);
  const set: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(request, key) || body[key] !== request[key]) set[key] = body[key];
  }
  return withTopLevelFields(source, members, set);
}

function capMaxTokens(body: ChatRequestBody, cap: number): void {
  const asked = [body.max_tokens, body.max_completion_tokens].filter((v): v is number => typeof v === 'number');
  if (asked.length === 0) {
    body.max_tokens = cap;
    return;
  }
  if (typeof body.max_tokens === 'number') body.max_tokens = Math.min(body.max_tokens, cap);
  if (typeof body.max_completion_tokens === 'number') body.max_completion_tokens = Math.min(body.max_completion_tokens, cap);
}
