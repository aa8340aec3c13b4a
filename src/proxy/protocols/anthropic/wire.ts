/** Anthropic Messages shapes the proxy sends to the harness. */

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export type AnthropicOutputBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface AnthropicResponseMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicOutputBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

export type AnthropicBlockDelta =
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string };

export type AnthropicStreamEvent =
  | { type: 'message_start'; message: AnthropicResponseMessage }
  | { type: 'content_block_start'; index: number; content_block: AnthropicOutputBlock }
  | { type: 'content_block_delta'; index: number; delta: AnthropicBlockDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: AnthropicStopReason; stop_sequence: string | null };
      usage: { output_tokens: number; input_tokens?: number };
    }
  | { type: 'message_stop' };

/** Usage with the cache fields Anthropic clients expect (the upstream reports no prompt caching). */
export function anthropicUsage(inputTokens: number, outputTokens: number): AnthropicUsage {
  return { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}
