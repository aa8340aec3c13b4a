import { randomBytes } from 'node:crypto';
import type { ChatRequest } from './chat-request.js';
import type { Completion, SimModel } from './models/types.js';
import { logprobEntries } from './pseudo-logprobs.js';
import { newToolCallId } from './tool-call-id.js';
import { SIM_FINGERPRINT } from './sim-labels.js';

/** Everything one response (streamed or not) is built from. */
export interface ResponseInput {
  id: string;
  created: number;
  model: string;
  /** Whose tokens these are. */
  sim: SimModel;
  request: ChatRequest;
  promptIds: number[];
  completion: Completion;
}

export function newCompletionId(): string {
  return `chatcmpl-${randomBytes(16).toString('hex')}`;
}

export function usageOf(input: ResponseInput): { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details: null } {
  const prompt = input.promptIds.length;
  const completion = input.completion.ids.length;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: null };
}

/** The non-streaming `chat.completion` body, shaped like vLLM's (token ids only when asked for). */
export function chatCompletionBody(input: ResponseInput): Record<string, unknown> {
  const { request, completion } = input;
  const returnIds = request.return_token_ids === true;
  return {
    id: input.id,
    object: 'chat.completion',
    created: input.created,
    model: input.model,
    system_fingerprint: SIM_FINGERPRINT,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: completion.content,
          reasoning_content: completion.reasoning,
          ...(completion.reasoning !== null ? { reasoning: completion.reasoning } : {}),
          tool_calls: completion.toolCalls.map((call) => ({
            id: newToolCallId(),
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        },
        logprobs: request.logprobs
          ? { content: logprobEntries(input.sim, completion.ids, 0, request.top_logprobs ?? 0, request.return_tokens_as_token_ids === true) }
          : null,
        finish_reason: completion.finishReason,
        stop_reason: null,
        ...(returnIds ? { token_ids: completion.ids } : {}),
      },
    ],
    usage: usageOf(input),
    ...(returnIds ? { prompt_token_ids: input.promptIds } : {}),
  };
}
