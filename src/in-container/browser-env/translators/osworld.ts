import type { CanonicalAction } from '../actions.js';
import { key } from './keys-translate.js';
import { ActionInputError, NOTCH_PX, type Translator, fromScreenshot, isRecord, num, str } from './types.js';

type Button = 'left' | 'right' | 'middle';

/**
 * OSWorld computer_13: `{action_type, parameters}` (or the bare strings "WAIT", "DONE", "FAIL"). Coordinates
 * are screenshot pixels; SCROLL dx/dy are wheel notches (pyautogui convention: positive dy scrolls up).
 */
export const fromOSWorld: Translator = (raw, ctx) => {
  if (raw === 'WAIT' || raw === 'DONE' || raw === 'FAIL') raw = { action_type: raw };
  if (!isRecord(raw) || typeof raw.action_type !== 'string') throw new ActionInputError('bad_action', 'an OSWorld action is {action_type, parameters}');
  const p = isRecord(raw.parameters) ? raw.parameters : {};
  const hasPoint = p.x !== undefined && p.y !== undefined;
  const at = () => fromScreenshot(num(p.x, 'x'), num(p.y, 'y'), ctx);
  const button = (): Button => {
    const b = p.button === undefined ? 'left' : str(p.button, 'button');
    if (b !== 'left' && b !== 'right' && b !== 'middle') throw new ActionInputError('bad_action', `button must be left, right or middle, got "${b}"`);
    return b;
  };
  const click = (b: Button, count: number): CanonicalAction[] => {
    if (count !== 1 && count !== 2 && count !== 3) throw new ActionInputError('bad_action', `num_clicks must be 1, 2 or 3, got ${count}`);
    return [{ type: 'click', ...(hasPoint ? at() : ctx.mouse), button: b, count }];
  };
  switch (raw.action_type) {
    case 'MOVE_TO':
      return [{ type: 'move', ...at() }];
    case 'CLICK':
      return click(button(), p.num_clicks === undefined ? 1 : num(p.num_clicks, 'num_clicks'));
    case 'RIGHT_CLICK':
      return click('right', 1);
    case 'DOUBLE_CLICK':
      return click('left', 2);
    case 'MOUSE_DOWN':
      return [{ type: 'mouse_down', button: button() }];
    case 'MOUSE_UP':
      return [{ type: 'mouse_up', button: button() }];
    case 'DRAG_TO':
      return [{ type: 'drag', path: [ctx.mouse, at()] }];
    case 'SCROLL':
      return [{ type: 'scroll', dx: num(p.dx ?? 0, 'dx') * NOTCH_PX, dy: -num(p.dy ?? 0, 'dy') * NOTCH_PX }];
    case 'TYPING':
      return [{ type: 'type', text: str(p.text, 'text') }];
    case 'PRESS':
      return [{ type: 'key', keys: [key(str(p.key, 'key'))] }];
    case 'KEY_DOWN':
      return [{ type: 'key_down', key: key(str(p.key, 'key')) }];
    case 'KEY_UP':
      return [{ type: 'key_up', key: key(str(p.key, 'key')) }];
    case 'HOTKEY': {
      if (!Array.isArray(p.keys) || p.keys.length === 0) throw new ActionInputError('bad_action', 'HOTKEY needs keys: a list of key names');
      return [{ type: 'key', keys: p.keys.map((k, i) => key(str(k, `keys[${i}]`))) }];
    }
    case 'WAIT':
      return [{ type: 'wait', ms: 1000 }];
    case 'DONE':
      return [{ type: 'done' }];
    case 'FAIL':
      return [{ type: 'fail' }];
    default:
      throw new ActionInputError('unknown_action', `unknown OSWorld action_type "${raw.action_type}"`);
  }
};
