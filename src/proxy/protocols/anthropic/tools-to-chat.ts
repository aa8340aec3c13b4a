import { invalidAnthropicRequest } from './errors.js';
import type { AnthropicTool, AnthropicToolChoice } from './request-schema.js';

export interface ChatToolFields {
  tools?: unknown[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
}

/**
 * Custom tools → function tools. Server tools (`web_search_20250305`, `code_execution_…`) run on
 * Anthropic's servers, which the upstream cannot do, so they are left out; a tool_choice is only
 * sent with at least one tool left, as Chat Completions servers refuse it otherwise.
 */
export function chatToolFields(tools: readonly AnthropicTool[] | undefined, choice: AnthropicToolChoice | undefined): ChatToolFields {
  const functions = (tools ?? []).flatMap((tool, i) => {
    if (tool.type !== undefined && tool.type !== 'custom') return [];
    if (!tool.input_schema) throw invalidAnthropicRequest(`tools.${i}.input_schema`, 'Field required');
    const fn: Record<string, unknown> = { name: tool.name, parameters: tool.input_schema };
    if (tool.description !== undefined) fn.description = tool.description;
    return [{ type: 'function', function: fn }];
  });
  if (functions.length === 0) return {};
  const fields: ChatToolFields = { tools: functions };
  if (!choice) return fields;
  if (choice.type === 'auto') fields.tool_choice = 'auto';
  else if (choice.type === 'any') fields.tool_choice = 'required';
  else if (choice.type === 'none') fields.tool_choice = 'none';
  else fields.tool_choice = { type: 'function', function: { name: choice.name } };
  if ('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true) fields.parallel_tool_calls = false;
  return fields;
}
