import type { StreamDelta } from './types.js';

/**
 * The deltas of one decoding step as one Chat Completions delta, as vLLM sends a step (reasoning,
 * content and whole tool calls, each call with an id from `toolCallId`); undefined when they say nothing.
 */
export function chatDelta(deltas: readonly StreamDelta[], toolCallId: () => string): Record<string, unknown> | undefined {
  let reasoning = '';
  let content = '';
  const calls: unknown[] = [];
  for (const d of deltas) {
    reasoning += d.reasoning_content ?? '';
    content += d.content ?? '';
    for (const call of d.tool_calls ?? []) {
      calls.push({ index: call.index, id: toolCallId(), type: 'function', function: { name: call.name ?? '', arguments: call.arguments ?? '' } });
    }
  }
  if (!reasoning && !content && calls.length === 0) return undefined;
  return { ...(reasoning ? { reasoning_content: reasoning } : {}), ...(content ? { content } : {}), ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}
