import type { ChatRequestBody } from '../../engine-wire/chat-wire.js';
import type { TokenInKind, TokenInOptions } from '../types.js';
import { forcedFields } from '../upstream/engine-request.js';

export type { TokenInKind };

/** Sampling fields of a Chat Completions request that mean the same to a completions engine. */
const SAMPLING_FIELDS = ['temperature', 'top_p', 'top_k', 'min_p', 'presence_penalty', 'frequency_penalty', 'repetition_penalty', 'seed', 'stop'];

export interface EngineRequest {
  /** Relative to the upstream's base URL (…/v1/). */
  path: string;
  body: Record<string, unknown>;
  /** The engine streams its answer. */
  stream: boolean;
}

export type EngineRequestOptions = Omit<TokenInOptions, 'family'>;

/** The engine request for a Chat Completions request whose prompt is `promptIds`. */
export function engineRequest(request: ChatRequestBody, promptIds: readonly number[], options: EngineRequestOptions): EngineRequest {
  const sampling: Record<string, unknown> = {};
  for (const field of SAMPLING_FIELDS) if (request[field] !== undefined && request[field] !== null) sampling[field] = request[field];
  if (options.sampling?.temperature !== undefined) sampling.temperature = options.sampling.temperature;
  if (options.sampling?.fields) Object.assign(sampling, forcedFields(request, options.sampling.fields));
  const maxTokens = Math.max(1, Math.min(asked(request) ?? Infinity, options.sampling?.maxTokens ?? Infinity, options.maxModelLen - promptIds.length));
  const stream = request.stream === true;
  if (options.kind === 'sglang') {
    // answered whole: the proxy streams the parsed answer to the harness
    const { seed: _seed, stop, ...rest } = sampling;
    return {
      path: '../generate',
      body: {
        input_ids: promptIds,
        sampling_params: { ...rest, ...(stop !== undefined ? { stop } : {}), max_new_tokens: maxTokens, skip_special_tokens: false },
        return_logprob: true,
        stream: false,
      },
      stream: false,
    };
  }
  const topLogprobs = Math.max(typeof request.top_logprobs === 'number' ? request.top_logprobs : 0, options.sampling?.topLogprobs ?? 0);
  const body: Record<string, unknown> = {
    model: options.sampling?.model ?? request.model,
    prompt: promptIds,
    max_tokens: maxTokens,
    ...sampling,
    logprobs: topLogprobs,
    return_token_ids: true,
    skip_special_tokens: false,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
  if (options.sendConversation) {
    body.openforge_chat = {
      messages: request.messages,
      tools: request.tools,
      tool_choice: request.tool_choice,
      chat_template_kwargs: request.chat_template_kwargs,
    };
  }
  return { path: 'completions', body, stream };
}

function asked(request: ChatRequestBody): number | undefined {
  const value = request.max_completion_tokens ?? request.max_tokens;
  return typeof value === 'number' ? value : undefined;
}
