import type { ToolDefinition } from '../chat-request.js';

/** A harness's GUI tool in the shape of Anthropic's computer_20250124 (an `action` enum plus its parameters). */
export interface ComputerTool {
  name: string;
  /** The actions the tool declares (its `action` enum); empty when it declares no enum. */
  actions: string[];
}

/** Actions that make a tool a computer tool even under another name. */
const COMPUTER_MARKERS = ['left_click', 'mouse_move'];

/**
 * Finds the computer tool among the request's function tools: one named `computer`, or one whose
 * `action` parameter enumerates Anthropic computer actions (left_click, mouse_move). The name wins.
 */
export function findComputerTool(tools: readonly ToolDefinition[] | null | undefined): ComputerTool | undefined {
  let best: { tool: ComputerTool; rank: number } | undefined;
  for (const definition of tools ?? []) {
    const fn = definition.function;
    if (definition.type !== 'function' || !fn) continue;
    const properties = (fn.parameters?.properties ?? {}) as Record<string, { enum?: unknown }>;
    const actionEnum = Array.isArray(properties.action?.enum) ? properties.action.enum.filter((a): a is string => typeof a === 'string') : undefined;
    const named = fn.name.toLowerCase() === 'computer';
    const marked = !!actionEnum && COMPUTER_MARKERS.some((m) => actionEnum.includes(m));
    if (!named && !marked) continue;
    if (named && !properties.action) continue;
    const rank = named ? 2 : 1;
    if (!best || rank > best.rank) best = { tool: { name: fn.name, actions: actionEnum ?? [] }, rank };
  }
  return best?.tool;
}

/** True when the tool declares the action (a tool without an enum is assumed to take every standard one). */
export function declares(tool: ComputerTool, action: string): boolean {
  return tool.actions.length === 0 ? !EXTENSION_ACTIONS.has(action) : tool.actions.includes(action);
}

/** Actions beyond computer_20250124 that a tool must declare before the oracle uses them. */
const EXTENSION_ACTIONS = new Set(['navigate', 'go_back', 'go_forward', 'new_tab', 'switch_tab', 'close_tab', 'zoom', 'done', 'fail']);
