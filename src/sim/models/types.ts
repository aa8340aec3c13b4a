import type { ChatMessage, ToolDefinition } from '../chat-request.js';
import type { PolicyAnswer } from '../policies/types.js';

export type FinishReason = 'stop' | 'tool_calls' | 'length';

/** One streamed chunk's worth of a completion: its delta and the token ids it carries. */
export interface CompletionChunk {
  delta: Record<string, unknown>;
  ids: number[];
}

/** One generated assistant turn: its tokens, the message a vLLM parser returns for them, and its stream. */
export interface Completion {
  ids: number[];
  finishReason: FinishReason;
  content: string | null;
  reasoning: string | null;
  toolCalls: { name: string; arguments: string }[];
  /** The stream's chunks in order; their ids, then `finishIds`, concatenate to `ids`. */
  chunks: CompletionChunk[];
  /** Tokens that show in no delta after the last chunk (`<|im_end|>`): they ride along in the finish chunk. */
  finishIds: number[];
}

/** What the simulated model's tokens are: the built-in ChatML model, or a real family's. */
export interface SimModel {
  /** `chatml`, or the family's name: recorded with every call. */
  readonly family: string;
  /** The prompt's ids; with `generationPrompt`, ending with the opening of the assistant turn. Throws a SimHttpError for a request the template refuses. */
  renderPrompt(request: PromptRequest, generationPrompt: boolean): number[];
  /** The answer as generated after the prompt, cut at `maxTokens` (finish reason "length"). */
  complete(answer: PolicyAnswer, request: PromptRequest, maxTokens?: number): Completion;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** A token as logprobs name it. */
  tokenText(id: number): string;
  /** A made-up other token, for top logprobs. */
  alternative(id: number, position: number, k: number): number;
}

/** What renders a prompt: the request's conversation, tools and template switches. */
export interface PromptRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[] | null;
  tool_choice?: unknown;
  chat_template_kwargs?: unknown;
}
