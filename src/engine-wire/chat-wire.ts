/**
 * Chat Completions shapes as the upstream (vLLM, SGLang, OpenAI) sends them. Upstream JSON is not
 * validated, so every field is optional and readers check what they use.
 */

export interface ChatToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface ChatTokenLogprob {
  token?: string;
  logprob?: number;
  [key: string]: unknown;
}

export interface ChatLogprobs {
  content?: ChatTokenLogprob[] | null;
  [key: string]: unknown;
}

export interface ChatDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ChatToolCallDelta[];
  [key: string]: unknown;
}

export interface ChatChoice {
  index?: number;
  /** Streaming chunks. */
  delta?: ChatDelta;
  /** Whole responses. */
  message?: ChatDelta;
  finish_reason?: string | null;
  logprobs?: ChatLogprobs | null;
  /** vLLM with return_token_ids: the completion ids (whole response) or this chunk's delta. */
  token_ids?: number[] | null;
  [key: string]: unknown;
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  [key: string]: unknown;
}

/** A whole `chat.completion` or one `chat.completion.chunk`. */
export interface ChatBody {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: ChatChoice[];
  usage?: ChatUsage | null;
  /**
   * vLLM with return_token_ids (first chunk only when streaming). An Int32Array when the proxy read
   * the ids straight from the bytes (`splitPromptTokenIds`).
   */
  prompt_token_ids?: number[] | Int32Array | null;
  /** An error reported inside a stream. */
  error?: { message?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** A Chat Completions request body (the harness's, or the one sent upstream). */
export type ChatRequestBody = Record<string, unknown> & {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
};
