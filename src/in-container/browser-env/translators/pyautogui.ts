import type { CanonicalAction } from '../actions.js';
import { key } from './keys-translate.js';
import { PyParseError, type PyCall, type PyValue, parseCall, statements } from './python-call.js';
import { ActionInputError, NOTCH_PX, type TranslateContext, type Translator, fromScreenshot, isRecord } from './types.js';

type Button = 'left' | 'right' | 'middle';

/**
 * A pyautogui subset, parsed (never executed): click/doubleClick/tripleClick/rightClick/middleClick,
 * moveTo/moveRel, dragTo/dragRel, mouseDown/mouseUp, scroll/hscroll (clicks = wheel notches, positive is
 * up / right), write/typewrite, press, hotkey, keyDown/keyUp, time.sleep, and OSWorld's WAIT/DONE/FAIL.
 * Accepts a script string (one call per line) or `{code: "..."}`. Coordinates are screenshot pixels.
 */
export const fromPyautogui: Translator = (raw, ctx) => {
  const code = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.code === 'string' ? raw.code : undefined;
  if (code === undefined)
    throw new ActionInputError('bad_pyautogui', 'pyautogui input is a string of calls, e.g. "pyautogui.click(100, 200)", or {code: "..."}');
  const mouse = { ...ctx.mouse };
  const out: CanonicalAction[] = [];
  const lines = statements(code);
  if (lines.length === 0) throw new ActionInputError('bad_pyautogui', 'the pyautogui code holds no call');
  for (const line of lines) {
    if (/^(WAIT|DONE|FAIL)$/.test(line)) {
      out.push(line === 'WAIT' ? { type: 'wait', ms: 1000 } : line === 'DONE' ? { type: 'done' } : { type: 'fail' });
      continue;
    }
    let call: PyCall;
    try {
      call = parseCall(line);
    } catch (err) {
      throw new ActionInputError('bad_pyautogui', `cannot parse "${line.slice(0, 80)}": ${(err as PyParseError).message}`);
    }
    const actions = translateCall(call, { ...ctx, mouse: { ...mouse } });
    for (const a of actions) {
      if ('x' in a && 'y' in a && typeof a.x === 'number' && typeof a.y === 'number') Object.assign(mouse, { x: a.x, y: a.y });
      if (a.type === 'drag') Object.assign(mouse, a.path[a.path.length - 1]);
    }
    out.push(...actions);
  }
  return out;
};

function translateCall(call: PyCall, ctx: TranslateContext): CanonicalAction[] {
  const fn = call.name.replace(/^pyautogui\./, '');
  const arg = (i: number, name: string): PyValue | undefined => call.kwargs[name] ?? call.args[i];
  const number = (i: number, name: string, fallback?: number): number => {
    const v = arg(i, name) ?? fallback;
    if (typeof v !== 'number') throw bad(call, `${name} must be a number`);
    return v;
  };
  const point = (): { x: number; y: number } | undefined => {
    const first = arg(0, 'x');
    if (first === undefined || first === null) return undefined;
    // click((x, y)) is accepted by pyautogui too.
    if (Array.isArray(first) && first.length === 2 && typeof first[0] === 'number' && typeof first[1] === 'number')
      return fromScreenshot(first[0], first[1], ctx);
    return fromScreenshot(number(0, 'x'), number(1, 'y'), ctx);
  };
  const button = (fallback: Button): Button => {
    const b = call.kwargs.button ?? fallback;
    if (b !== 'left' && b !== 'right' && b !== 'middle') throw bad(call, `button must be 'left', 'right' or 'middle'`);
    return b;
  };
  const click = (b: Button, count: 1 | 2 | 3): CanonicalAction[] => [{ type: 'click', ...(point() ?? ctx.mouse), button: b, count }];
  const text = (i: number, name: string): string => {
    const v = arg(i, name);
    if (typeof v !== 'string') throw bad(call, `${name} must be a string`);
    return v;
  };
  const keyList = (v: PyValue | undefined): string[] => {
    const list = Array.isArray(v) ? v : [v];
    return list.map((k) => {
      if (typeof k !== 'string') throw bad(call, 'key names must be strings');
      return key(k);
    });
  };
  switch (fn) {
    case 'click': {
      const clicks = call.kwargs.clicks ?? 1;
      if (clicks !== 1 && clicks !== 2 && clicks !== 3) throw bad(call, 'clicks must be 1, 2 or 3');
      return click(button('left'), clicks);
    }
    case 'leftClick':
      return click('left', 1);
    case 'doubleClick':
      return click(button('left'), 2);
    case 'tripleClick':
      return click(button('left'), 3);
    case 'rightClick':
      return click('right', 1);
    case 'middleClick':
      return click('middle', 1);
    case 'moveTo':
      return [{ type: 'move', ...(point() ?? bad(call, 'moveTo needs x, y')) }];
    case 'moveRel':
    case 'move':
      return [{ type: 'move', x: ctx.mouse.x + number(0, 'xOffset', 0), y: ctx.mouse.y + number(1, 'yOffset', 0) }];
    case 'dragTo':
      return [{ type: 'drag', path: [ctx.mouse, point() ?? bad(call, 'dragTo needs x, y')] }];
    case 'dragRel':
      return [{ type: 'drag', path: [ctx.mouse, { x: ctx.mouse.x + number(0, 'xOffset', 0), y: ctx.mouse.y + number(1, 'yOffset', 0) }] }];
    case 'mouseDown':
    case 'mouseUp': {
      const p = point();
      return [...(p ? [{ type: 'move' as const, ...p }] : []), { type: fn === 'mouseDown' ? 'mouse_down' : 'mouse_up', button: button('left') }];
    }
    case 'scroll':
    case 'hscroll': {
      const clicks = number(0, 'clicks');
      const x = call.kwargs.x ?? call.args[1];
      const y = call.kwargs.y ?? call.args[2];
      const where = typeof x === 'number' && typeof y === 'number' ? fromScreenshot(x, y, ctx) : {};
      const px = clicks * NOTCH_PX;
      return [{ type: 'scroll', ...where, dx: fn === 'hscroll' ? px : 0, dy: fn === 'scroll' ? -px : 0 }];
    }
    case 'write':
    case 'typewrite': {
      const message = arg(0, 'message');
      // typewrite(['a', 'enter']) presses keys one by one.
      if (Array.isArray(message)) return keyList(message).map((k) => ({ type: 'key', keys: [k] }));
      return [{ type: 'type', text: text(0, 'message') }];
    }
    case 'press': {
      const presses = number(1, 'presses', 1);
      const keys = keyList(arg(0, 'keys'));
      return Array.from({ length: Math.max(1, Math.min(100, Math.round(presses))) }, () => keys.map((k) => ({ type: 'key' as const, keys: [k] }))).flat();
    }
    case 'hotkey': {
      const keys = call.args.length === 1 && Array.isArray(call.args[0]) ? call.args[0] : call.args;
      if (keys.length === 0) throw bad(call, 'hotkey needs key names');
      return [{ type: 'key', keys: keyList(keys) }];
    }
    case 'keyDown':
    case 'keyUp':
      return [{ type: fn === 'keyDown' ? 'key_down' : 'key_up', key: keyList(arg(0, 'key'))[0]! }];
    case 'time.sleep':
    case 'sleep':
      return [{ type: 'wait', ms: Math.round(number(0, 'secs') * 1000) }];
    default:
      throw new ActionInputError(
        'bad_pyautogui',
        `${call.name}() is not in the supported pyautogui subset (click, doubleClick, tripleClick, rightClick, middleClick, moveTo, dragTo, mouseDown, mouseUp, scroll, hscroll, write, typewrite, press, hotkey, keyDown, keyUp, time.sleep)`,
      );
  }
}

function bad(call: PyCall, message: string): never {
  throw new ActionInputError('bad_pyautogui', `${call.name}(): ${message}`);
}
