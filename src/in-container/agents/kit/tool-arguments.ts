import type { ToolCall } from './chat-client.js';

/**
 * A tool call's arguments, which must be a JSON object (an empty string counts as `{}`); otherwise the
 * `Error: …` text the model gets back as the call's result, naming the tool and what is wrong.
 */
export function toolArguments(call: ToolCall): { args: Record<string, unknown> } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.function.arguments || '{}');
  } catch (err) {
    return { error: invalid(call, (err as Error).message) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: invalid(call, 'arguments must be a JSON object') };
  return { args: parsed as Record<string, unknown> };
}

function invalid(call: ToolCall, problem: string): string {
  return `Error: invalid JSON arguments for tool "${call.function.name}": ${problem}`;
}
