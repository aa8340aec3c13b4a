import type { CanonicalAction } from '../actions.js';
import { key } from './keys-translate.js';
import { ActionInputError, NOTCH_PX, type TranslateContext, type Translator, isRecord, num, pair, str } from './types.js';

/** Qwen2.5-VL's image processor defaults (patch 14, merge 2). */
const FACTOR = 28;
const MIN_PIXELS = 56 * 56;
const MAX_PIXELS = 14 * 14 * 4 * 1280 * 16;
/** Qwen3-VL coordinates are on a 0–999 grid over the screenshot, whatever its size. */
export const QWEN3_GRID = 1000;

/** Qwen2.5-VL's smart_resize: the size the model actually saw (multiples of 28 within the pixel budget). */
export function smartResize(width: number, height: number): { width: number; height: number } {
  let h = Math.max(FACTOR, Math.round(height / FACTOR) * FACTOR);
  let w = Math.max(FACTOR, Math.round(width / FACTOR) * FACTOR);
  if (h * w > MAX_PIXELS) {
    const beta = Math.sqrt((height * width) / MAX_PIXELS);
    h = Math.floor(height / beta / FACTOR) * FACTOR;
    w = Math.floor(width / beta / FACTOR) * FACTOR;
  } else if (h * w < MIN_PIXELS) {
    const beta = Math.sqrt(MIN_PIXELS / (height * width));
    h = Math.ceil((height * beta) / FACTOR) * FACTOR;
    w = Math.ceil((width * beta) / FACTOR) * FACTOR;
  }
  return { width: w, height: h };
}

type Space = 'smart-resize' | 'grid';

/** Model coordinates → CSS px: smart-resized screenshot pixels (Qwen2.5-VL) or the 0–999 grid (Qwen3-VL). */
function toCss(x: number, y: number, space: Space, ctx: TranslateContext): { x: number; y: number } {
  const { width, height } = ctx.viewport;
  if (space === 'grid') return { x: (x / QWEN3_GRID) * width, y: (y / QWEN3_GRID) * height };
  // The model saw the screenshot after smart_resize of the image the harness sent.
  const sent = ctx.screenshotSize ?? { width, height };
  const seen = smartResize(sent.width, sent.height);
  return { x: (x * width) / seen.width, y: (y * height) / seen.height };
}

/**
 * Qwen2.5-VL / Qwen3-VL `computer_use` tool calls: `{name: "computer_use", arguments: {action, ...}}` or the
 * arguments alone. `scroll`/`hscroll` amounts are wheel notches (the reference agents pass them to
 * pyautogui.scroll; positive scrolls up / right).
 */
function qwen(space: Space): Translator {
  return (raw, ctx) => {
    const a = isRecord(raw) && isRecord(raw.arguments) ? raw.arguments : raw;
    if (!isRecord(a) || typeof a.action !== 'string') throw new ActionInputError('bad_action', 'a Qwen computer_use call has arguments with an "action" field');
    const at = () => {
      const [x, y] = pair(a.coordinate, 'coordinate');
      return toCss(x, y, space, ctx);
    };
    const click = (button: 'left' | 'right' | 'middle', count: 1 | 2 | 3): CanonicalAction[] => [
      { type: 'click', ...(a.coordinate === undefined ? ctx.mouse : at()), button, count },
    ];
    switch (a.action) {
      case 'key': {
        const keys = Array.isArray(a.keys) ? a.keys : typeof a.keys === 'string' ? [a.keys] : undefined;
        if (!keys || keys.length === 0) throw new ActionInputError('bad_action', 'key needs keys: a list of key names, e.g. ["ctrl", "c"]');
        return [{ type: 'key', keys: keys.map((k, i) => key(str(k, `keys[${i}]`))) }];
      }
      case 'type':
        return [{ type: 'type', text: str(a.text, 'text') }];
      case 'mouse_move':
        return [{ type: 'move', ...at() }];
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
      case 'left_click_drag':
        // Drags from where the cursor is to `coordinate`.
        return [{ type: 'drag', path: [ctx.mouse, at()] }];
      case 'scroll':
      case 'hscroll': {
        const notches = num(a.pixels ?? a.amount, 'pixels');
        const where = a.coordinate === undefined ? {} : at();
        const delta = -notches * NOTCH_PX;
        return [{ type: 'scroll', ...where, dx: a.action === 'hscroll' ? -delta : 0, dy: a.action === 'scroll' ? delta : 0 }];
      }
      case 'wait':
        return [{ type: 'wait', ms: Math.round(num(a.time ?? 1, 'time') * 1000) }];
      case 'terminate': {
        const status = a.status === undefined ? 'success' : str(a.status, 'status');
        return [status === 'success' ? { type: 'done' } : { type: 'fail', reason: `terminate(${status})` }];
      }
      case 'answer':
        return [{ type: 'done', answer: str(a.text, 'text') }];
      default:
        throw new ActionInputError('unknown_action', `unknown Qwen computer_use action "${a.action}"`);
    }
  };
}

export const fromQwen25VL = qwen('smart-resize');
export const fromQwen3VL = qwen('grid');
