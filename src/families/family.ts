import type { TemplateValue } from './template/chat-template.js';
import type { LoadedTokenizer } from './tokenizer/hf-tokenizer.js';
import type { TextStream } from './tokenizer/incremental-detokenizer.js';
import type { Answer, ChatMessage, ParsedCompletion, StreamDelta, ToolSpec } from './types.js';

/**
 * A real model family: how a server of the model turns an OpenAI request into the exact prompt
 * text and tokens, what raw text the model samples for an answer, and how the server parses raw
 * text back into reasoning, content and tool calls.
 */
export interface ModelFamily {
  /** A known family's name (`qwen3`), or the folder a family was read from. */
  readonly name: string;
  readonly tokenizer: LoadedTokenizer;
  /** Token ids that end a generation (the served model's eos ids). */
  readonly stopTokenIds: readonly number[];
  /** The text of the token that ends an assistant turn in the template's history (the first stop token). */
  readonly endOfTurn: string;
  /** Ids the vocabulary spans (for made-up alternatives in top logprobs). */
  readonly vocabSize: number;

  renderPrompt(messages: readonly ChatMessage[], tools: readonly ToolSpec[] | null | undefined, options: RenderOptions): string;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** A decoder of sampled ids as they stream in (text held back while it ends inside a character). */
  streamDecoder(): TextStream;
  /** The raw text the model samples for this answer after the generation prompt, ending with its stop token. */
  formatCompletion(answer: Answer, options?: { enableThinking?: boolean }): string;
  /** What the server's reasoning and tool parsers return for a raw completion. */
  parseCompletion(text: string, ctx?: ParseContext): ParsedCompletion;
  createStreamParser(ctx?: ParseContext): CompletionStreamParser;
}

export interface RenderOptions {
  addGenerationPrompt: boolean;
  /** Qwen3's `enable_thinking` chat_template_kwarg; undefined: the template's default. */
  enableThinking?: boolean;
  /** Other chat_template_kwargs. */
  templateKwargs?: Record<string, TemplateValue>;
}

/** Request facts the server-side parsers depend on. */
export interface ParseContext {
  /** The request's chat_template_kwargs.enable_thinking (Qwen3's reasoning parser reads it). */
  enableThinking?: boolean;
  /** Tool parsing runs: the request has tools and tool_choice is not "none". Default true. */
  toolsEnabled?: boolean;
}

export interface CompletionStreamParser {
  /** Newly sampled text in; the deltas that are now certain out. */
  push(text: string): StreamDelta[];
  /** End of generation: whatever was held back. */
  finish(): StreamDelta[];
}

/** How a model writes its answers and how its server parses them: the part of a family that is not the template or the tokenizer. */
export interface WireFormat {
  /** Texts of the tokens that end a generation; the first one ends an assistant turn in the template's history. */
  readonly stopTokens: readonly string[];
  /** A marker only this format's template writes, to tell which format a Hugging Face folder's template uses. */
  readonly templateMarker: string;
  formatCompletion(answer: Answer, options: { enableThinking?: boolean }): string;
  parseCompletion(text: string, ctx: ParseContext): ParsedCompletion;
  createStreamParser(ctx: ParseContext): CompletionStreamParser;
}

/** The parse context of an OpenAI request, as vLLM derives it. */
export function parseContextOf(body: object): ParseContext {
  const request = body as { tools?: unknown; tool_choice?: unknown; chat_template_kwargs?: unknown };
  const kwargs = request.chat_template_kwargs;
  const thinking = typeof kwargs === 'object' && kwargs !== null ? (kwargs as Record<string, unknown>).enable_thinking : undefined;
  return {
    enableThinking: typeof thinking === 'boolean' ? thinking : undefined,
    toolsEnabled: Array.isArray(request.tools) && request.tools.length > 0 && request.tool_choice !== 'none',
  };
}
