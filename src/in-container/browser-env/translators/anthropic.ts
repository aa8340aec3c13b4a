import type { CanonicalAction } from '../actions.js';
import { chords } from './keys-translate.js';
import { ActionInputError, NOTCH_PX, type Translator, fromScreenshot, isRecord, num, pair, str } from './types.js';

/**
 * Anthropic computer_20250124 (and computer_20251124's zoom). Accepts the tool input
 * (`{action, coordinate, ...}`) or the whole tool_use block (`{type: "tool_use", input: {...}}`).
 * Coordinates are pixels of the screenshot sent; scroll_amount is in wheel notches; keys are xdotool names.
 */
export const fromAnthropic: Translator = (raw, ctx) => {
  const a = isRecord(raw) && isRecord(raw.input) ? raw.input : raw;
  if (!isRecord(a) || typeof a.action !== 'string')
    throw new ActionInputError('bad_action', 'an Anthropic computer action is an object with an "action" field');
  const at = (field = 'coordinate') => {
    const [x, y] = pair(a[field], field);
    return fromScreenshot(x, y, ctx);
  };
  const maybeAt = () => (a.coordinate === undefined ? [] : [{ type: 'move' as const, ...at() }]);
  const click = (button: 'left' | 'right' | 'middle', count: 1 | 2 | 3): CanonicalAction[] => {
    // `text` on a click holds modifier keys to press during it (e.g. "shift"); on other actions it is not keys.
    const modifiers = typeof a.text === 'string' && a.text.trim() ? chords(a.text).flat() : undefined;
    if (a.coordinate === undefined) {
      return [{ type: 'click', ...ctx.mouse, button, count, ...(modifiers ? { modifiers } : {}) }];
    }
    return [{ type: 'click', ...at(), button, count, ...(modifiers ? { modifiers } : {}) }];
  };
  switch (a.action) {
    case 'key':
      return chords(str(a.text, 'text')).map((keys) => ({ type: 'key', keys }));
    case 'hold_key': {
      const keys = chords(str(a.text, 'text')).flat();
      const ms = Math.round(num(a.duration ?? 0, 'duration') * 1000);
      return [
        ...keys.map((k) => ({ type: 'key_down' as const, key: k })),
        { type: 'wait', ms },
        ...keys.reverse().map((k) => ({ type: 'key_up' as const, key: k })),
      ];
    }
    case 'type':
      return [{ type: 'type', text: str(a.text, 'text') }];
    case 'cursor_position':
    case 'screenshot':
      return [{ type: 'screenshot' }];
    case 'mouse_move':
      return [{ type: 'move', ...at() }];
    case 'left_mouse_down':
      return [...maybeAt(), { type: 'mouse_down', button: 'left' }];
    case 'left_mouse_up':
      return [...maybeAt(), { type: 'mouse_up', button: 'left' }];
    case 'left_click':
      return click('left', 1);
    case 'right_click':
      return click('right', 1);
    case 'middle_click':
      return click('middle', 1);
    case 'double_click':
      return click('left', 2);
    case 'triple_click':
      return click('left', 3);
    case 'left_click_drag': {
      const start = a.start_coordinate === undefined ? ctx.mouse : at('start_coordinate');
      return [{ type: 'drag', path: [start, at()] }];
    }
    case 'scroll': {
      const amount = num(a.scroll_amount ?? 3, 'scroll_amount') * NOTCH_PX;
      const dir = str(a.scroll_direction, 'scroll_direction');
      const delta = { up: [0, -amount], down: [0, amount], left: [-amount, 0], right: [amount, 0] }[dir];
      if (!delta) throw new ActionInputError('bad_action', `scroll_direction must be up, down, left or right, got "${dir}"`);
      const where = a.coordinate === undefined ? {} : at();
      return [{ type: 'scroll', ...where, dx: delta[0]!, dy: delta[1]! }];
    }
    case 'wait': {
      // Beyond computer_20250124: text given to wait is what to wait for (forge-gui-agent's tool says so).
      const until = a.text === undefined || a.text === '' ? {} : { until: str(a.text, 'text') };
      return [{ type: 'wait', ms: Math.round(num(a.duration ?? 1, 'duration') * 1000), ...until }];
    }
    case 'zoom': {
      if (!Array.isArray(a.region) || a.region.length !== 4) throw new ActionInputError('bad_action', 'zoom needs region [x0, y0, x1, y1]');
      const p0 = fromScreenshot(num(a.region[0], 'region[0]'), num(a.region[1], 'region[1]'), ctx);
      const p1 = fromScreenshot(num(a.region[2], 'region[2]'), num(a.region[3], 'region[3]'), ctx);
      return [{ type: 'zoom', region: [p0.x, p0.y, p1.x, p1.y] }];
    }
    default:
      throw new ActionInputError('unknown_action', `unknown Anthropic computer action "${a.action}"`);
  }
};
