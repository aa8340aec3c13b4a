import type { CanonicalAction } from '../../in-container/browser-env/actions.js';
import type { ToolDefinition } from '../chat-request.js';
import { cannotComplete, type ComputerScript } from './computer-actions.js';

/**
 * A GUI env server's MCP tools as a harness shows them to the model: `<prefix><kind>_<verb>`, where the
 * prefix is the harness's own (`mcp__browser__` in Claude Code, …) and kind is `browser` or `desktop`.
 * Recognised by the `<kind>_action` tool every env server declares (one action in any schema).
 */
export interface EnvMcpTools {
  prefix: string;
  kind: 'browser' | 'desktop';
  names: ReadonlySet<string>;
}

const ACTION_TOOL = /^(.*?)(browser|desktop)_action$/;

export function findEnvMcpTools(tools: readonly ToolDefinition[] | null | undefined): EnvMcpTools | undefined {
  const names = (tools ?? []).flatMap((t) => (t.function?.name ? [t.function.name] : []));
  for (const name of names) {
    const match = ACTION_TOOL.exec(name);
    if (!match) continue;
    const prefix = match[1]!;
    const kind = match[2] as 'browser' | 'desktop';
    return { prefix, kind, names: new Set(names.filter((n) => n.startsWith(`${prefix}${kind}_`))) };
  }
  return undefined;
}

export interface McpCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Canonical reference actions → the env server's MCP tool calls: the dedicated tool where one fits
 * (click, type, key, scroll, drag, navigate), else `<kind>_action` with the canonical action itself.
 * `done` ends the script as the final answer; `fail` goes to the env server first.
 */
export function toMcpCalls(actions: readonly CanonicalAction[], tools: EnvMcpTools): { calls: McpCall[]; finalAnswer: ComputerScript['finalAnswer'] } {
  const calls: McpCall[] = [];
  const tool = (verb: string) => `${tools.prefix}${tools.kind}_${verb}`;
  const has = (verb: string) => tools.names.has(tool(verb));
  for (const action of actions) {
    if (action.type === 'done') return { calls, finalAnswer: action.answer ?? '' };
    if (action.type === 'fail') {
      // through the env server, which records the episode as given up, then said in the final answer
      calls.push({ name: tool('action'), arguments: { schema: 'canonical', action } });
      return { calls, finalAnswer: cannotComplete(action.reason) };
    }
    if (action.type === 'click' && !action.modifiers?.length && has('click')) {
      calls.push({
        name: tool('click'),
        arguments: { x: action.x, y: action.y, ...(action.button ? { button: action.button } : {}), ...(action.count ? { count: action.count } : {}) },
      });
    } else if (action.type === 'type' && has('type')) {
      calls.push({ name: tool('type'), arguments: { text: action.text } });
    } else if (action.type === 'key' && has('key')) {
      calls.push({ name: tool('key'), arguments: { keys: action.keys } });
    } else if (action.type === 'scroll' && has('scroll')) {
      calls.push({
        name: tool('scroll'),
        arguments: { dx: action.dx, dy: action.dy, ...(action.x !== undefined && action.y !== undefined ? { x: action.x, y: action.y } : {}) },
      });
    } else if (action.type === 'drag' && has('drag')) {
      calls.push({ name: tool('drag'), arguments: { path: action.path.map(({ x, y }) => ({ x, y })) } });
    } else if (action.type === 'goto' && has('navigate')) {
      calls.push({ name: tool('navigate'), arguments: { url: action.url } });
    } else {
      calls.push({ name: tool('action'), arguments: { schema: 'canonical', action } });
    }
  }
  return { calls, finalAnswer: undefined };
}
