import { key } from './keys-translate.js';
import { ActionInputError, type Translator, fromScreenshot, isRecord, num, str } from './types.js';

const BUTTONS: Record<string, 'left' | 'right' | 'middle' | 'back' | 'forward'> = {
  left: 'left',
  right: 'right',
  wheel: 'middle',
  middle: 'middle',
  back: 'back',
  forward: 'forward',
};

/**
 * OpenAI computer-use: the `action` of a `computer_call` output item (or the item itself). Coordinates are
 * pixels of the screenshot sent; scroll_x / scroll_y are pixels; keys are names like "CTRL", "ENTER".
 */
export const fromOpenAI: Translator = (raw, ctx) => {
  const a = isRecord(raw) && raw.type === 'computer_call' && isRecord(raw.action) ? raw.action : raw;
  if (!isRecord(a) || typeof a.type !== 'string') throw new ActionInputError('bad_action', 'an OpenAI computer action is an object with a "type" field');
  const at = () => fromScreenshot(num(a.x, 'x'), num(a.y, 'y'), ctx);
  switch (a.type) {
    case 'click': {
      const name = a.button === undefined ? 'left' : str(a.button, 'button');
      const button = BUTTONS[name];
      if (!button) throw new ActionInputError('bad_action', `button must be one of left, right, wheel, back, forward, got "${name}"`);
      return [{ type: 'click', ...at(), button }];
    }
    case 'double_click':
      return [{ type: 'click', ...at(), button: 'left', count: 2 }];
    case 'move':
      return [{ type: 'move', ...at() }];
    case 'drag': {
      if (!Array.isArray(a.path) || a.path.length < 2) throw new ActionInputError('bad_action', 'drag needs a path of at least two {x, y} points');
      return [
        {
          type: 'drag',
          path: a.path.map((p, i) =>
            isRecord(p) ? fromScreenshot(num(p.x, `path[${i}].x`), num(p.y, `path[${i}].y`), ctx) : fail(`path[${i}] must be {x, y}`),
          ),
        },
      ];
    }
    case 'scroll': {
      const s = ctx.screenshotSize;
      const kx = s ? ctx.viewport.width / s.width : 1;
      const ky = s ? ctx.viewport.height / s.height : 1;
      return [{ type: 'scroll', ...at(), dx: num(a.scroll_x ?? 0, 'scroll_x') * kx, dy: num(a.scroll_y ?? 0, 'scroll_y') * ky }];
    }
    case 'keypress': {
      if (!Array.isArray(a.keys) || a.keys.length === 0) throw new ActionInputError('bad_action', 'keypress needs keys: a non-empty list of key names');
      return [{ type: 'key', keys: a.keys.map((k, i) => key(str(k, `keys[${i}]`))) }];
    }
    case 'type':
      return [{ type: 'type', text: str(a.text, 'text') }];
    case 'wait':
      return [{ type: 'wait', ms: a.ms === undefined ? 1000 : num(a.ms, 'ms') }];
    case 'screenshot':
      return [{ type: 'screenshot' }];
    default:
      throw new ActionInputError('unknown_action', `unknown OpenAI computer action "${a.type}"`);
  }
};

function fail(message: string): never {
  throw new ActionInputError('bad_action', message);
}
