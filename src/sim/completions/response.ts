import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Completion, SimModel } from '../models/types.js';
import { logprobEntries } from '../pseudo-logprobs.js';
import { SIM_FINGERPRINT } from '../sim-labels.js';
import type { CompletionsRequest } from './request.js';

/** Everything one `/v1/completions` answer (whole or streamed) is built from. */
export interface CompletionsAnswer {
  id: string;
  created: number;
  model: string;
  sim: SimModel;
  request: CompletionsRequest;
  promptIds: number[];
  completion: Completion;
}

export function newCompletionsId(): string {
  return `cmpl-${randomBytes(16).toString('hex')}`;
}

/** The completions API knows no tool calls: a parsed tool call is the model stopping. */
function finishReason(completion: Completion): 'stop' | 'length' {
  return completion.finishReason === 'length' ? 'length' : 'stop';
}

function usage(answer: CompletionsAnswer): Record<string, number> {
  const prompt = answer.promptIds.length;
  const completion = answer.completion.ids.length;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The OpenAI legacy `logprobs` object of these tokens, the first at completion position `start`. */
function legacyLogprobs(answer: CompletionsAnswer, ids: number[], start: number, textOffset: number): Record<string, unknown> | null {
  const top = answer.request.logprobs;
  if (top == null) return null;
  const entries = logprobEntries(answer.sim, ids, start, top, false);
  const offsets: number[] = [];
  let offset = textOffset;
  for (const entry of entries) {
    offsets.push(offset);
    offset += entry.token.length;
  }
  return {
    text_offset: offsets,
    token_logprobs: entries.map((e) => e.logprob),
    tokens: entries.map((e) => e.token),
    top_logprobs: entries.map((e) => Object.fromEntries((top > 0 ? e.top_logprobs : [e]).map((t) => [t.token, t.logprob]))),
  };
}

/** The non-streamed `text_completion` body, shaped like vLLM's (`prompt_token_ids` and `token_ids` on the choice when asked for). */
export function completionsBody(answer: CompletionsAnswer): Record<string, unknown> {
  const { completion, request } = answer;
  const ids = request.return_token_ids === true;
  return {
    id: answer.id,
    object: 'text_completion',
    created: answer.created,
    model: answer.model,
    system_fingerprint: SIM_FINGERPRINT,
    choices: [
      {
        index: 0,
        text: answer.sim.decode(completion.ids),
        logprobs: legacyLogprobs(answer, completion.ids, 0, 0),
        finish_reason: finishReason(completion),
        stop_reason: null,
        prompt_logprobs: null,
        ...(ids ? { prompt_token_ids: answer.promptIds, token_ids: completion.ids } : {}),
      },
    ],
    usage: usage(answer),
  };
}

/** The streamed answer: one chunk per token (its text, id and logprob), a finish chunk, an optional usage chunk, `[DONE]`. */
export async function* completionsEvents(answer: CompletionsAnswer, stepMs: () => number = () => 0): AsyncGenerator<string> {
  const { completion, request } = answer;
  const returnIds = request.return_token_ids === true;
  const event = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: answer.id, object: 'text_completion', created: answer.created, model: answer.model, system_fingerprint: SIM_FINGERPRINT, choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
  let decoded = '';
  for (let i = 0; i < completion.ids.length; i++) {
    const ms = stepMs();
    if (ms > 0) await sleep(ms);
    const id = completion.ids[i] as number;
    const text = answer.sim.decode(completion.ids.slice(0, i + 1));
    // a token that ends inside a character shows its text with the token that completes it
    const whole = !text.endsWith('\uFFFD') || i === completion.ids.length - 1;
    const piece = whole ? text.slice(decoded.length) : '';
    yield event({
      text: piece,
      logprobs: legacyLogprobs(answer, [id], i, decoded.length),
      finish_reason: null,
      ...(returnIds ? { token_ids: [id], ...(i === 0 ? { prompt_token_ids: answer.promptIds } : {}) } : {}),
    });
    if (whole) decoded = text;
  }
  yield event({ text: '', logprobs: null, finish_reason: finishReason(completion), stop_reason: null, ...(returnIds ? { token_ids: [] } : {}) });
  if (request.stream_options?.include_usage)
    yield `data: ${JSON.stringify({ id: answer.id, object: 'text_completion', created: answer.created, model: answer.model, choices: [], usage: usage(answer) })}\n\n`;
  yield 'data: [DONE]\n\n';
}
