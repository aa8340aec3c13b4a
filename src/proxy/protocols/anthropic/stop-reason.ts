import type { AnthropicStopReason } from './wire.js';

export interface AnthropicStop {
  stop_reason: AnthropicStopReason;
  stop_sequence: string | null;
}

/**
 * Chat `finish_reason` → Anthropic `stop_reason`. vLLM's own `stop_reason` field holds the stop
 * string that ended generation (a number for a stop token, null for end of sequence), which is
 * what tells `stop_sequence` apart from `end_turn`.
 */
export function anthropicStop(finishReason: string | null | undefined, engineStopReason: unknown, madeToolCalls: boolean): AnthropicStop {
  if (finishReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (finishReason === 'content_filter') return { stop_reason: 'refusal', stop_sequence: null };
  if (finishReason === 'tool_calls' || finishReason === 'function_call' || madeToolCalls) {
    return { stop_reason: 'tool_use', stop_sequence: null };
  }
  if (typeof engineStopReason === 'string') return { stop_reason: 'stop_sequence', stop_sequence: engineStopReason };
  return { stop_reason: 'end_turn', stop_sequence: null };
}
