import { setTimeout as sleep } from 'node:timers/promises';
import { usageOf, type ResponseInput } from './chat-response.js';
import type { Completion, FinishReason } from './models/types.js';
import { logprobEntries } from './pseudo-logprobs.js';
import { SIM_FINGERPRINT } from './sim-labels.js';

/** How many decode-step pauses streaming `completion` takes: one per chunk that carries tokens (the first one before the role chunk). */
export function streamPauses(completion: Completion): number {
  return completion.chunks.length + 1;
}

/**
 * The SSE events of a streamed response, vLLM-style: a role chunk (with `prompt_token_ids`), the
 * completion's chunks, a finish chunk, an optional usage chunk, `[DONE]`. The chunks' ids concatenate
 * to exactly the non-streamed ids. Each chunk waits for a decode step of `stepMs()`, read when the step starts.
 */
export async function* chatCompletionEvents(input: ResponseInput, stepMs: () => number = () => 0): AsyncGenerator<string> {
  const { request, completion } = input;
  const returnIds = request.return_token_ids === true;
  const topK = request.top_logprobs ?? 0;
  const asTokenIds = request.return_tokens_as_token_ids === true;
  let position = 0;

  /** A `chat.completion.chunk` event with these members after the ones every chunk has. */
  const event = (members: Record<string, unknown>): string =>
    `data: ${JSON.stringify({ id: input.id, object: 'chat.completion.chunk', created: input.created, model: input.model, system_fingerprint: SIM_FINGERPRINT, ...members })}\n\n`;
  const chunk = (delta: Record<string, unknown>, ids: number[], finishReason: FinishReason | null = null): string => {
    const logprobs = request.logprobs && ids.length > 0 ? { content: logprobEntries(input.sim, ids, position, topK, asTokenIds) } : null;
    position += ids.length;
    return event({ choices: [{ index: 0, delta, logprobs, finish_reason: finishReason, ...(returnIds ? { token_ids: ids } : {}) }] });
  };

  // vLLM sends its first chunk (the role) with the first generated token, not before: the stream's first
  // byte waits for the first token, and the first token's chunk follows at once
  let firstTokenPending = true;
  const pause = async (): Promise<void> => {
    if (firstTokenPending) {
      firstTokenPending = false;
      return;
    }
    const ms = stepMs();
    if (ms > 0) await sleep(ms);
  };
  const firstMs = stepMs();
  if (firstMs > 0) await sleep(firstMs);
  yield event({
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, ...(returnIds ? { token_ids: [] } : {}) }],
    ...(returnIds ? { prompt_token_ids: input.promptIds } : {}),
  });
  for (const { delta, ids } of completion.chunks) {
    await pause();
    yield chunk(delta, ids);
  }
  await pause();
  yield chunk({}, completion.finishIds, completion.finishReason);
  if (request.stream_options?.include_usage) {
    yield event({ choices: [], usage: usageOf(input) });
  }
  yield 'data: [DONE]\n\n';
}
