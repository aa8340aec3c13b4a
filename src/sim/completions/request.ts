import { z } from 'zod';
import type { ChatRequest } from '../chat-request.js';
import { parseChatRequest } from '../parse-chat-request.js';
import { SimHttpError } from '../sim-http-error.js';

/** vLLM's `/v1/completions` request, as far as the sim reads it; unknown fields are kept and ignored. */
const CompletionsRequestSchema = z.looseObject({
  model: z.string().optional(),
  prompt: z.union([z.array(z.number().int().min(0)).min(1), z.string().min(1)]),
  max_tokens: z.number().int().min(1).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  logprobs: z.number().int().min(0).max(20).nullish(),
  return_token_ids: z.boolean().nullish(),
  temperature: z.number().min(0).nullish(),
  n: z.number().int().min(1).nullish(),
  /** The conversation the token ids continue, which a scripted policy reads (see `openforgeChat`). */
  openforge_chat: z.unknown().optional(),
});
export type CompletionsRequest = z.infer<typeof CompletionsRequestSchema>;

export function parseCompletionsRequest(body: unknown): CompletionsRequest {
  const parsed = CompletionsRequestSchema.safeParse(body);
  if (parsed.success) {
    if (parsed.data.n != null && parsed.data.n !== 1) {
      throw new SimHttpError(400, `n: the simulated model generates exactly one choice per request, got n=${parsed.data.n}`, {
        param: 'n',
        code: 'unsupported_value',
      });
    }
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.join('.') : null;
  throw new SimHttpError(400, `${param ?? 'request body'}: ${issue?.message ?? 'invalid request'}`, { param, code: 'invalid_value' });
}

/**
 * The chat request a token-id prompt continues. A scripted policy decides what to say from the
 * conversation and its tools, which token ids alone do not carry for every template (DeepSeek-V3's
 * renders no tools): the recording proxy's token-in mode sends the conversation along to `sim:` upstreams.
 */
export function openforgeChat(request: CompletionsRequest): ChatRequest {
  if (request.openforge_chat === undefined) {
    throw new SimHttpError(
      400,
      'openforge_chat: the simulated model answers a token-id prompt only with the conversation it continues ' +
        '(messages and tools, as a chat request), which the recording proxy sends in token-in mode; a scripted policy cannot read tools from token ids',
      { param: 'openforge_chat', code: 'missing_conversation' },
    );
  }
  try {
    return parseChatRequest(request.openforge_chat);
  } catch (err) {
    if (err instanceof SimHttpError) throw new SimHttpError(400, `openforge_chat.${err.message}`, { param: 'openforge_chat', code: err.code });
    throw err;
  }
}
