import type { ChatRequestBody } from '../../../engine-wire/chat-wire.js';
import { errorMessage } from '../../../util/errors.js';
import { readText } from '../../upstream/http-client.js';
import { parseCountTokensRequest } from './request-schema.js';
import { chatPrompt } from './to-chat.js';
import { estimatePromptTokens } from './token-estimate.js';
import type { LocalCall, UpstreamAccess } from '../types.js';

/**
 * `{input_tokens}` plus how it was counted: `exact` when the upstream tokenized the prompt, else
 * `estimate` (the extra field is ignored by Anthropic clients and tells the record which it was).
 */
export interface TokenCount {
  input_tokens: number;
  openforge_token_count: 'exact' | 'estimate';
}

/**
 * vLLM serves `POST /tokenize` at its root (not under /v1): with `messages` and `tools` it renders
 * the chat template exactly as for a completion. `model` is left out because vLLM only checks it
 * when present, and the harness's model alias need not be a name the upstream serves.
 */
const TOKENIZE_PATH = '../tokenize';

/**
 * POST /v1/messages/count_tokens: answered by the proxy, recorded as a `count_tokens` call without
 * token ids. The body is validated when the call is answered, so that an invalid one is still
 * recorded under its own label (its 400 is the same).
 */
export function prepareCountTokens(body: unknown): LocalCall {
  const model = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).model : undefined;
  return {
    model: typeof model === 'string' ? model : '',
    stream: false,
    label: 'count_tokens',
    answerLocally: async (upstream) => countPromptTokens(chatPrompt(parseCountTokensRequest(body)), upstream),
  };
}

async function countPromptTokens(prompt: ChatRequestBody, upstream: UpstreamAccess): Promise<TokenCount> {
  const exact = await tokenizedLength(prompt, upstream);
  if (exact !== undefined) return { input_tokens: exact, openforge_token_count: 'exact' };
  return { input_tokens: estimatePromptTokens(prompt), openforge_token_count: 'estimate' };
}

/** The upstream's own count, or undefined when it has no tokenizer endpoint (or refused this prompt). */
async function tokenizedLength(prompt: ChatRequestBody, upstream: UpstreamAccess): Promise<number | undefined> {
  const request: Record<string, unknown> = { messages: prompt.messages, add_generation_prompt: true };
  if (prompt.tools !== undefined) request.tools = prompt.tools;
  const answer = await upstream.post(TOKENIZE_PATH, request);
  if (!answer.ok) return undefined;
  try {
    const body = JSON.parse(await readText(answer.response)) as { count?: unknown };
    return typeof body.count === 'number' && Number.isInteger(body.count) ? body.count : undefined;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw new Error(`reading the upstream's /tokenize answer failed: ${errorMessage(err)}`, { cause: err });
  }
}
