import type { TokenIds } from '../records/call.js';
import type { ChatBody, ChatChoice, ChatDelta } from './chat-wire.js';

/** What a call produced at token level, as the upstream reported it (choice 0). */
export interface CapturedTokens {
  promptTokenIds: TokenIds | null;
  completionTokenIds: number[] | null;
  /** One per completion token, or null when the upstream's logprobs do not line up with the ids. */
  logprobs: number[] | null;
  finishReason: string | null;
  /** The upstream answered without token ids (vLLM #27482, #28246, or a non-vLLM upstream). */
  missingTokenIds: boolean;
}

function isIdList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v));
}

function isPromptIds(value: unknown): value is TokenIds {
  return value instanceof Int32Array || isIdList(value);
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * A prompt's ids as an Int32Array, as a whole answer's are read from its bytes: half the memory of a
 * JS array (a stream holds them until it ends), and posted to the writing thread as one copy instead
 * of element by element. Ids beyond int32 (no vocabulary is that large) stay as they came.
 */
function compactIds(ids: TokenIds): TokenIds {
  if (ids instanceof Int32Array) return ids;
  for (const id of ids) if (id < 0 || id > INT32_MAX) return ids;
  return Int32Array.from(ids);
}

function firstChoice(body: ChatBody): ChatChoice | undefined {
  if (!Array.isArray(body.choices)) return undefined;
  return body.choices.find((c) => typeof c === 'object' && c !== null && (c.index ?? 0) === 0);
}

function logprobValues(choice: ChatChoice): number[] | undefined {
  const content = choice.logprobs?.content;
  if (!Array.isArray(content)) return undefined;
  return content.map((entry) => (typeof entry.logprob === 'number' ? entry.logprob : Number.NaN));
}

function hasOutput(delta: ChatDelta | undefined): boolean {
  if (!delta) return false;
  return Boolean(delta.content || delta.reasoning_content || delta.reasoning || delta.tool_calls?.length);
}

/**
 * Collects token ids and logprobs from an upstream answer: feed the whole response once, or every
 * stream chunk in order. Never invents ids: anything missing is reported through `missingTokenIds`.
 */
export class TokenCapture {
  private promptIds: TokenIds | null = null;
  private completionIds: number[] | null = null;
  private logprobs: number[] = [];
  private logprobsBroken = false;
  private finishReason: string | null = null;
  private outputWithoutIds = false;

  addResponse(body: ChatBody): void {
    if (isPromptIds(body.prompt_token_ids)) this.promptIds = compactIds(body.prompt_token_ids);
    const choice = firstChoice(body);
    if (!choice) return;
    if (isIdList(choice.token_ids)) this.completionIds = choice.token_ids;
    this.addLogprobs(choice);
    this.finishReason = choice.finish_reason ?? this.finishReason;
  }

  addChunk(chunk: ChatBody): void {
    if (this.promptIds === null && isPromptIds(chunk.prompt_token_ids)) this.promptIds = compactIds(chunk.prompt_token_ids);
    const choice = firstChoice(chunk);
    if (!choice) return;
    if (isIdList(choice.token_ids)) {
      (this.completionIds ??= []).push(...choice.token_ids);
    } else if (hasOutput(choice.delta)) {
      // vLLM's tool-call and reasoning parsers have been seen dropping ids on some chunks
      this.outputWithoutIds = true;
    }
    this.addLogprobs(choice);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** A token of the answer has been seen (or output that came without ids). */
  hasOutput(): boolean {
    return this.outputWithoutIds || (this.completionIds !== null && this.completionIds.length > 0);
  }

  result(): CapturedTokens {
    const missingTokenIds = this.promptIds === null || this.completionIds === null || this.outputWithoutIds;
    const alignedLogprobs = !this.logprobsBroken && this.completionIds !== null && this.logprobs.length === this.completionIds.length;
    return {
      promptTokenIds: this.promptIds,
      completionTokenIds: this.completionIds,
      logprobs: alignedLogprobs ? this.logprobs : null,
      finishReason: this.finishReason,
      missingTokenIds,
    };
  }

  private addLogprobs(choice: ChatChoice): void {
    const values = logprobValues(choice);
    if (!values) return;
    if (values.some(Number.isNaN)) this.logprobsBroken = true;
    this.logprobs.push(...values);
  }
}

/** The tokens of one whole answer (not a stream). */
export function wholeAnswerTokens(body: ChatBody): CapturedTokens {
  const capture = new TokenCapture();
  capture.addResponse(body);
  return capture.result();
}
