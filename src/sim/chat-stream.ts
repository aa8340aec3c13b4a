import { setTimeout as sleep } from 'node:timers/promises';
import { newToolCallId, usageOf, type ResponseInput } from './chat-response.js';
import type { FinishReason } from './completion.js';
import { logprobEntries } from './pseudo-logprobs.js';
import { SIM_FINGERPRINT } from './sim-labels.js';
import { tokenText } from '../families/chatml/tokenizer.js';

/** How many decode-step pauses streaming `completion` takes: one per chunk that carries tokens (the first one before the role chunk). */
export function streamPauses(completion: ResponseInput['completion']): number {
  let pauses = 1; // before the finish chunk
  for (const piece of completion.pieces) {
    if (piece.kind === 'tool-header') pauses += 1;
    else if (piece.kind === 'content' || piece.kind === 'reasoning' || piece.kind === 'tool-arguments') pauses += piece.ids.length;
  }
  return pauses;
}

/**
 * The SSE events of a streamed response, vLLM-style: a role chunk (with `prompt_token_ids`), one
 * chunk per generated token, a tool call's name in one chunk and its arguments token by token,
 * a finish chunk, an optional usage chunk, `[DONE]`. Tokens that show in no delta (`<think>`,
 * `</tool_call>`, `<|im_end|>`, …) ride along in the next chunk's `token_ids`, so the chunks'
 * ids concatenate to exactly the non-streamed ids. Each token waits for a decode step of `stepMs()`, read
 * when the step starts.
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
    const logprobs = request.logprobs && ids.length > 0 ? { content: logprobEntries(ids, position, topK, asTokenIds) } : null;
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

  let pending: number[] = [];
  const take = (ids: number[]): number[] => {
    const all = [...pending, ...ids];
    pending = [];
    return all;
  };

  for (const piece of completion.pieces) {
    switch (piece.kind) {
      case 'structural':
      case 'tool-trailer':
        pending.push(...piece.ids);
        break;
      case 'tool-header':
        await pause();
        yield chunk(
          { tool_calls: [{ index: piece.toolIndex, id: newToolCallId(), type: 'function', function: { name: piece.toolName, arguments: '' } }] },
          take(piece.ids),
        );
        break;
      case 'content':
      case 'reasoning':
      case 'tool-arguments':
        for (const id of piece.ids) {
          const text = tokenText(id);
          const delta =
            piece.kind === 'content'
              ? { content: text }
              : piece.kind === 'reasoning'
                ? { reasoning_content: text }
                : { tool_calls: [{ index: piece.toolIndex, function: { arguments: text } }] };
          await pause();
          yield chunk(delta, take([id]));
        }
        break;
    }
  }
  await pause();
  yield chunk({}, take([]), completion.finishReason);
  if (request.stream_options?.include_usage) {
    yield event({ choices: [], usage: usageOf(input) });
  }
  yield 'data: [DONE]\n\n';
}
