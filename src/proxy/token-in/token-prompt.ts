import type { ModelFamily } from '../../families/family.js';
import { parseContextOf } from '../../families/family.js';
import type { JsonValue } from '../../families/json/json-value.js';
import type { ChatMessage, ToolSpec } from '../../families/types.js';
import type { ChatRequestBody } from '../../engine-wire/chat-wire.js';
import { errorMessage } from '../../util/errors.js';
import { ProxyHttpError } from '../http/http-error.js';
import type { ContinuedTurn } from './token-history.js';

/**
 * The prompt ids of a token-in call. A call that continues a served turn gets that turn's prompt and
 * sampled ids as they were, then the ids of what the template writes after the turn's answer: the
 * messages the harness appended and the generation prompt. Any other call gets its whole conversation
 * rendered and tokenized.
 */
export function tokenPrompt(
  family: ModelFamily,
  request: ChatRequestBody,
  continued: ContinuedTurn | undefined,
  turnsCounted: boolean,
): { ids: number[]; continued: boolean; turnsEnded: number } {
  const messages = request.messages as ChatMessage[];
  const render = (list: readonly ChatMessage[], addGenerationPrompt: boolean): string => renderOrRefuse(family, request, list, addGenerationPrompt);
  const whole = render(messages, true);
  const turnsEnded = count(whole, family.endOfTurn);
  if (continued) {
    const { turn, answerAt, transient } = continued;
    // what the template writes after the answer's end-of-turn token is new. Where a template ends each turn with one
    // marker and opens the answer with none, the answer's is the one after the served render's (less the messages left out).
    const answerEnds = turnsCounted && transient === 0 ? turn.turnsEnded + 1 : count(render(messages.slice(0, answerAt + 1), false), family.endOfTurn);
    const boundary = afterNth(whole, family.endOfTurn, answerEnds);
    if (boundary >= 0) {
      const last = turn.completionIds[turn.completionIds.length - 1];
      // a completion cut short (finish reason "length") did not sample the end of its turn: the template's is an observation
      const ended = last !== undefined && family.stopTokenIds.includes(last) ? [] : [family.stopTokenIds[0] as number];
      return { ids: [...turn.promptIds, ...turn.completionIds, ...ended, ...family.encode(whole.slice(boundary))], continued: true, turnsEnded };
    }
  }
  return { ids: family.encode(whole), continued: false, turnsEnded };
}

/**
 * Whether the template writes one end-of-turn marker per answer and none in the generation prompt (a
 * conversation and its answer, rendered, differ by exactly one): then a turn's end is counted, not rendered.
 */
export function countsTurns(family: ModelFamily): boolean {
  const asked: ChatMessage[] = [{ role: 'user', content: 'a' }];
  try {
    const before = count(family.renderPrompt(asked, null, { addGenerationPrompt: true }), family.endOfTurn);
    const after = count(family.renderPrompt([...asked, { role: 'assistant', content: 'b' }], null, { addGenerationPrompt: false }), family.endOfTurn);
    return after === before + 1;
  } catch {
    return false;
  }
}

function renderOrRefuse(family: ModelFamily, request: ChatRequestBody, messages: readonly ChatMessage[], addGenerationPrompt: boolean): string {
  const { enableThinking } = parseContextOf(request);
  const kwargs =
    typeof request.chat_template_kwargs === 'object' && request.chat_template_kwargs !== null
      ? (request.chat_template_kwargs as Record<string, JsonValue>)
      : {};
  const { enable_thinking: _thinking, ...templateKwargs } = kwargs;
  try {
    return family.renderPrompt(messages, request.tools as ToolSpec[] | undefined, { addGenerationPrompt, enableThinking, templateKwargs });
  } catch (err) {
    throw new ProxyHttpError(
      400,
      `the chat template of ${family.name} cannot render this request: ${errorMessage(err)}`,
      'invalid_request_error',
      'template_error',
    );
  }
}

function count(text: string, marker: string): number {
  let n = 0;
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) n++;
  return n;
}

/** The index just after the n-th occurrence of `marker`, or -1. */
function afterNth(text: string, marker: string, n: number): number {
  let at = -marker.length;
  for (let k = 0; k < n; k++) {
    at = text.indexOf(marker, at + marker.length);
    if (at < 0) return -1;
  }
  return n === 0 ? -1 : at + marker.length;
}
