/** OpenAI chat-completions shapes, as a harness sends them and a server returns them. */
import type { JsonValue } from './json/json-value.js';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ToolCallIn {
  id?: string;
  type?: 'function';
  function: {
    name: string;
    /** OpenAI sends a JSON string; an already-parsed object is accepted too (vLLM does). */
    arguments?: string | JsonValue;
  };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | TextPart[] | null;
  name?: string;
  tool_calls?: ToolCallIn[] | null;
  tool_call_id?: string;
  /** vLLM reads this key of an assistant message and hands it to the template as `reasoning_content`. */
  reasoning?: string | null;
  /** Dropped by current vLLM on input (kept here because harnesses send it). */
  reasoning_content?: string | null;
  [extra: string]: unknown;
}

export interface ToolSpec {
  type: 'function';
  function: {
    name: string;
    description?: string | null;
    parameters?: JsonValue;
    [extra: string]: JsonValue | undefined;
  };
}

/** A tool call as the model "meant" it: name plus an arguments object. */
export interface AnswerToolCall {
  name: string;
  arguments: JsonValue;
}

/** What a simulated model decided to say, before it is turned into raw sampled text. */
export interface Answer {
  reasoning?: string | null;
  content?: string | null;
  toolCalls?: AnswerToolCall[];
}

/** A tool call in a server response: arguments are a JSON string. */
export interface ParsedToolCall {
  name: string;
  arguments: string;
}

/** The assistant message vLLM's parsers produce from raw sampled text. */
export interface ParsedCompletion {
  reasoning_content: string | null;
  content: string | null;
  tool_calls: ParsedToolCall[];
}

/** One streamed increment, shaped like an OpenAI delta (tool calls by index). */
export interface StreamDelta {
  reasoning_content?: string;
  content?: string;
  tool_calls?: { index: number; name?: string; arguments?: string }[];
}
