import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Task } from '../../config/task.js';
import { readActionsFile, ReferenceActionsError } from '../../config/reference-actions.js';
import type { CanonicalAction } from '../../in-container/browser-env/actions.js';
import { declares, type ComputerTool } from './computer-tool.js';

/**
 * CSS pixels per scroll notch: Anthropic's scroll_amount counts wheel notches; the env server's
 * translator (src/in-container/browser-env/translators/types.ts NOTCH_PX) turns each back into the same 100 px.
 */
export const SCROLL_NOTCH_PX = 100;

/** The reference actions of a browser task (solution/actions.json), or undefined when it has none. */
export function readReferenceActions(task: Task): CanonicalAction[] | undefined {
  const file = path.join(task.dir, 'solution', 'actions.json');
  return existsSync(file) ? readActionsFile(file) : undefined;
}

export { ReferenceActionsError };

/** One computer-tool call's arguments, in Anthropic computer_20250124 shape. */
export type ComputerArgs = Record<string, unknown> & { action: string };

/** What replaying the reference takes: the tool calls in order, then the final answer. */
export interface ComputerScript {
  calls: ComputerArgs[];
  finalAnswer: string | undefined;
}

/** The final answer that gives a task up (OSWorld's FAIL) where no tool action says it. */
export function cannotComplete(reason: string | undefined): string {
  return `I cannot complete the task${reason ? `: ${reason}` : '.'}`;
}

/**
 * Canonical actions → the tool calls that do the same through a computer tool. One canonical action
 * may take several calls (a drag along a path, a scroll in both axes, goto without a `navigate` action);
 * `done` ends the script as the final answer, `fail` as the tool's own `fail` action where it declares one
 * (the env server then records the episode as given up), else as a final answer saying so.
 */
export function toComputerCalls(actions: readonly CanonicalAction[], tool: ComputerTool): ComputerScript {
  const calls: ComputerArgs[] = [];
  for (const action of actions) {
    if (action.type === 'done') return { calls, finalAnswer: action.answer ?? '' };
    if (action.type === 'fail') {
      if (!declares(tool, 'fail')) return { calls, finalAnswer: cannotComplete(action.reason) };
      calls.push({ action: 'fail', ...(action.reason ? { text: action.reason } : {}) });
      return { calls, finalAnswer: undefined };
    }
    calls.push(...toComputerArgs(action, tool));
  }
  return { calls, finalAnswer: undefined };
}

export function toComputerArgs(action: CanonicalAction, tool: ComputerTool): ComputerArgs[] {
  const at = (x: number, y: number) => [Math.round(x), Math.round(y)];
  switch (action.type) {
    case 'click': {
      const button = action.button ?? 'left';
      const count = action.count ?? 1;
      let name: string;
      if (button === 'left') name = count === 3 ? 'triple_click' : count === 2 ? 'double_click' : 'left_click';
      else if ((button === 'right' || button === 'middle') && count === 1) name = `${button}_click`;
      else throw unsupported(action, `a ${button} click${count > 1 ? ` ×${count}` : ''} has no computer_20250124 action`);
      const modifiers = action.modifiers?.length ? { text: action.modifiers.map(toXdotoolKey).join('+') } : {};
      return [{ action: name, coordinate: at(action.x, action.y), ...modifiers }];
    }
    case 'move':
      return [{ action: 'mouse_move', coordinate: at(action.x, action.y) }];
    case 'mouse_down':
    case 'mouse_up':
      if ((action.button ?? 'left') !== 'left') throw unsupported(action, 'computer_20250124 presses only the left button');
      return [{ action: action.type === 'mouse_down' ? 'left_mouse_down' : 'left_mouse_up' }];
    case 'drag': {
      const first = action.path[0]!;
      const last = action.path[action.path.length - 1]!;
      if (action.path.length === 2) return [{ action: 'left_click_drag', start_coordinate: at(first.x, first.y), coordinate: at(last.x, last.y) }];
      return [
        { action: 'mouse_move', coordinate: at(first.x, first.y) },
        { action: 'left_mouse_down' },
        ...action.path.slice(1).map((p) => ({ action: 'mouse_move', coordinate: at(p.x, p.y) })),
        { action: 'left_mouse_up' },
      ];
    }
    case 'scroll': {
      const where = action.x !== undefined && action.y !== undefined ? { coordinate: at(action.x, action.y) } : {};
      const calls: ComputerArgs[] = [];
      if (action.dy !== 0) calls.push({ action: 'scroll', ...where, scroll_direction: action.dy > 0 ? 'down' : 'up', scroll_amount: notches(action.dy) });
      if (action.dx !== 0) calls.push({ action: 'scroll', ...where, scroll_direction: action.dx > 0 ? 'right' : 'left', scroll_amount: notches(action.dx) });
      return calls;
    }
    case 'type':
      return [{ action: 'type', text: action.text }];
    case 'key':
      return [{ action: 'key', text: action.keys.map(toXdotoolKey).join('+') }];
    case 'wait':
      return [{ action: 'wait', duration: action.ms / 1000, ...(action.until === undefined ? {} : { text: action.until }) }];
    case 'screenshot':
      return [{ action: 'screenshot' }];
    case 'zoom':
      return declares(tool, 'zoom') ? [{ action: 'zoom', region: action.region.map(Math.round) }] : [{ action: 'screenshot' }];
    case 'goto':
      if (declares(tool, 'navigate')) return [{ action: 'navigate', url: action.url }];
      // Without a navigate action: focus the address bar and type the URL, as a person would.
      return [
        { action: 'key', text: 'ctrl+l' },
        { action: 'type', text: action.url },
        { action: 'key', text: 'Return' },
      ];
    case 'go_back':
    case 'go_forward':
      if (declares(tool, action.type)) return [{ action: action.type }];
      return [{ action: 'key', text: action.type === 'go_back' ? 'alt+Left' : 'alt+Right' }];
    case 'new_tab':
    case 'switch_tab':
    case 'close_tab': {
      if (!declares(tool, action.type)) throw unsupported(action, `the tool declares no ${action.type} action`);
      const { type, ...rest } = action;
      return [{ action: type, ...rest }];
    }
    default:
      throw unsupported(action, 'a computer tool acts on pixels and keys only (element refs and held keys have no computer_20250124 action)');
  }
}

/** Scroll pixels → whole notches (at least one, so a small scroll is not lost). */
function notches(px: number): number {
  return Math.max(1, Math.round(Math.abs(px) / SCROLL_NOTCH_PX));
}

/** Playwright key names → xdotool keysyms (what Anthropic's `key` action takes: "ctrl+s", "Return", "Page_Down"). */
const XDOTOOL: Record<string, string> = {
  Control: 'ctrl',
  Shift: 'shift',
  Alt: 'alt',
  Meta: 'super',
  Enter: 'Return',
  Backspace: 'BackSpace',
  Escape: 'Escape',
  Tab: 'Tab',
  Delete: 'Delete',
  Insert: 'Insert',
  Home: 'Home',
  End: 'End',
  PageUp: 'Page_Up',
  PageDown: 'Page_Down',
  ArrowUp: 'Up',
  ArrowDown: 'Down',
  ArrowLeft: 'Left',
  ArrowRight: 'Right',
  ' ': 'space',
  Space: 'space',
  '+': 'plus',
  '-': 'minus',
};

export function toXdotoolKey(key: string): string {
  return XDOTOOL[key] ?? key;
}

function unsupported(action: CanonicalAction, why: string): ReferenceActionsError {
  return new ReferenceActionsError(`reference action ${JSON.stringify(action)} cannot be replayed through a computer tool: ${why}`);
}
