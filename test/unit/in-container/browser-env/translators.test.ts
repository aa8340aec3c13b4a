import { describe, expect, it } from 'vitest';
import { CanonicalActionSchema } from '../../../../src/in-container/browser-env/actions.js';
import { normalizeKey, parseChord } from '../../../../src/in-container/browser-env/keys.js';
import { ActionInputError, translate, type TranslateContext } from '../../../../src/in-container/browser-env/translators/index.js';
import { smartResize } from '../../../../src/in-container/browser-env/translators/qwen.js';
import { BRAVO_BOX, CLICK_BRAVO } from '../../../fixtures/browser-pages/recorded-actions.js';

const ctx: TranslateContext = { viewport: { width: 1280, height: 800 }, mouse: { x: 10, y: 20 } };

function errorOf(fn: () => unknown): ActionInputError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ActionInputError) return err;
    throw err;
  }
  throw new Error('expected an ActionInputError');
}

describe('recorded clicks of every vocabulary', () => {
  for (const { schema, action } of CLICK_BRAVO) {
    it(`${schema} → one left click inside the target`, () => {
      const out = translate(schema, action, ctx);
      expect(out).toHaveLength(1);
      const click = out[0]!;
      expect(CanonicalActionSchema.parse(click)).toEqual(click);
      if (click.type !== 'click') throw new Error(`expected a click, got ${click.type}`);
      expect(click.button ?? 'left').toBe('left');
      expect(click.count ?? 1).toBe(1);
      expect(Math.abs(click.x - 650)).toBeLessThanOrEqual(2);
      expect(Math.abs(click.y - 425)).toBeLessThanOrEqual(2);
      expect(click.x).toBeGreaterThan(BRAVO_BOX.x);
      expect(click.y).toBeLessThan(BRAVO_BOX.y + BRAVO_BOX.height);
    });
  }
});

describe('Anthropic computer_20250124', () => {
  it('splits xdotool key sequences into chords of Playwright names', () => {
    expect(translate('anthropic', { action: 'key', text: 'ctrl+shift+t Return Page_Down' }, ctx)).toEqual([
      { type: 'key', keys: ['Control', 'Shift', 't'] },
      { type: 'key', keys: ['Enter'] },
      { type: 'key', keys: ['PageDown'] },
    ]);
  });
  it('scrolls in notches of 100 CSS px at the coordinate', () => {
    expect(translate('anthropic', { action: 'scroll', coordinate: [300, 200], scroll_direction: 'down', scroll_amount: 3 }, ctx)).toEqual([
      { type: 'scroll', x: 300, y: 200, dx: 0, dy: 300 },
    ]);
    expect(translate('anthropic', { action: 'scroll', scroll_direction: 'left', scroll_amount: 2 }, ctx)).toEqual([{ type: 'scroll', dx: -200, dy: 0 }]);
  });
  it('maps drags, modifier clicks, hold_key, waits and zoom', () => {
    expect(translate('anthropic', { action: 'left_click_drag', start_coordinate: [1, 2], coordinate: [3, 4] }, ctx)).toEqual([
      {
        type: 'drag',
        path: [
          { x: 1, y: 2 },
          { x: 3, y: 4 },
        ],
      },
    ]);
    expect(translate('anthropic', { action: 'left_click', coordinate: [5, 6], text: 'shift' }, ctx)).toEqual([
      { type: 'click', x: 5, y: 6, button: 'left', count: 1, modifiers: ['Shift'] },
    ]);
    expect(translate('anthropic', { action: 'triple_click', coordinate: [5, 6] }, ctx)[0]).toMatchObject({ count: 3 });
    expect(translate('anthropic', { action: 'hold_key', text: 'shift', duration: 0.5 }, ctx)).toEqual([
      { type: 'key_down', key: 'Shift' },
      { type: 'wait', ms: 500 },
      { type: 'key_up', key: 'Shift' },
    ]);
    expect(translate('anthropic', { action: 'wait', duration: 2 }, ctx)).toEqual([{ type: 'wait', ms: 2000 }]);
    expect(translate('anthropic', { action: 'wait', duration: 30, text: 'Font size' }, ctx)).toEqual([{ type: 'wait', ms: 30_000, until: 'Font size' }]);
    expect(translate('anthropic', { action: 'type', text: 'hello world, 2 + 2 = 4' }, ctx)).toEqual([{ type: 'type', text: 'hello world, 2 + 2 = 4' }]);
    expect(translate('anthropic', { action: 'zoom', region: [0, 0, 640, 400] }, ctx)).toEqual([{ type: 'zoom', region: [0, 0, 640, 400] }]);
    expect(translate('anthropic', { action: 'left_mouse_down' }, ctx)).toEqual([{ type: 'mouse_down', button: 'left' }]);
  });
  it('scales coordinates from a resized screenshot', () => {
    const out = translate('anthropic', { action: 'mouse_move', coordinate: [640, 400] }, { ...ctx, screenshotSize: { width: 1280 / 2, height: 800 / 2 } });
    expect(out).toEqual([{ type: 'move', x: 1280, y: 800 }]);
  });
});

describe('OpenAI computer-use', () => {
  it('maps buttons (wheel is middle), pixel scrolls, keypress names and drag paths', () => {
    expect(translate('openai', { type: 'click', x: 1, y: 2, button: 'wheel' }, ctx)).toEqual([{ type: 'click', x: 1, y: 2, button: 'middle' }]);
    expect(translate('openai', { type: 'scroll', x: 10, y: 20, scroll_x: 0, scroll_y: 250 }, ctx)).toEqual([{ type: 'scroll', x: 10, y: 20, dx: 0, dy: 250 }]);
    expect(translate('openai', { type: 'keypress', keys: ['CTRL', 'ENTER'] }, ctx)).toEqual([{ type: 'key', keys: ['Control', 'Enter'] }]);
    expect(
      translate(
        'openai',
        {
          type: 'drag',
          path: [
            { x: 1, y: 1 },
            { x: 5, y: 5 },
            { x: 9, y: 9 },
          ],
        },
        ctx,
      )[0],
    ).toMatchObject({
      type: 'drag',
      path: [
        { x: 1, y: 1 },
        { x: 5, y: 5 },
        { x: 9, y: 9 },
      ],
    });
  });
});

describe('Qwen computer_use', () => {
  it('computes the smart-resize grid Qwen2.5-VL sees', () => {
    expect(smartResize(1280, 800)).toEqual({ width: 1288, height: 812 });
    expect(smartResize(1920, 1080)).toEqual({ width: 1932, height: 1092 });
  });
  it('maps the Qwen3-VL 0–999 grid onto the viewport', () => {
    expect(translate('qwen3vl', { action: 'mouse_move', coordinate: [500, 500] }, ctx)).toEqual([{ type: 'move', x: 640, y: 400 }]);
  });
  it('drags from the cursor, scrolls in notches (positive is up) and terminates', () => {
    expect(translate('qwen3vl', { action: 'left_click_drag', coordinate: [500, 500] }, ctx)).toEqual([
      {
        type: 'drag',
        path: [
          { x: 10, y: 20 },
          { x: 640, y: 400 },
        ],
      },
    ]);
    expect(translate('qwen25vl', { action: 'scroll', pixels: -5 }, ctx)).toEqual([{ type: 'scroll', dx: 0, dy: 500 }]);
    expect(translate('qwen25vl', { action: 'hscroll', pixels: 2 }, ctx)).toEqual([{ type: 'scroll', dx: 200, dy: 0 }]);
    expect(translate('qwen25vl', { action: 'terminate', status: 'failure' }, ctx)).toEqual([{ type: 'fail', reason: 'terminate(failure)' }]);
    expect(translate('qwen25vl', { action: 'key', keys: ['ctrl', 'c'] }, ctx)).toEqual([{ type: 'key', keys: ['Control', 'c'] }]);
  });
});

describe('OSWorld computer_13', () => {
  it('maps every action type', () => {
    expect(translate('osworld', { action_type: 'DOUBLE_CLICK', parameters: { x: 3, y: 4 } }, ctx)).toEqual([
      { type: 'click', x: 3, y: 4, button: 'left', count: 2 },
    ]);
    expect(translate('osworld', { action_type: 'DRAG_TO', parameters: { x: 30, y: 40 } }, ctx)).toEqual([
      {
        type: 'drag',
        path: [
          { x: 10, y: 20 },
          { x: 30, y: 40 },
        ],
      },
    ]);
    expect(translate('osworld', { action_type: 'SCROLL', parameters: { dx: 0, dy: -3 } }, ctx)).toEqual([{ type: 'scroll', dx: 0, dy: 300 }]);
    expect(translate('osworld', { action_type: 'HOTKEY', parameters: { keys: ['cmd', 'option', 'esc'] } }, ctx)).toEqual([
      { type: 'key', keys: ['Meta', 'Alt', 'Escape'] },
    ]);
    expect(translate('osworld', { action_type: 'TYPING', parameters: { text: 'hi' } }, ctx)).toEqual([{ type: 'type', text: 'hi' }]);
    expect(translate('osworld', 'FAIL', ctx)).toEqual([{ type: 'fail' }]);
  });
});

describe('pyautogui (parsed, never executed)', () => {
  it('reads a multi-line script and follows the cursor between calls', () => {
    const script = `import pyautogui
pyautogui.moveTo(100, 200)  # hover first
pyautogui.dragTo(300, 400, duration=0.5)
pyautogui.write("it's \\"quoted\\"\\n")
pyautogui.hotkey('ctrl', 'a'); pyautogui.press(['tab', 'enter'])
pyautogui.scroll(-3, x=50, y=60)
time.sleep(0.25)`;
    expect(translate('pyautogui', script, ctx)).toEqual([
      { type: 'move', x: 100, y: 200 },
      {
        type: 'drag',
        path: [
          { x: 100, y: 200 },
          { x: 300, y: 400 },
        ],
      },
      { type: 'type', text: 'it\'s "quoted"\n' },
      { type: 'key', keys: ['Control', 'a'] },
      { type: 'key', keys: ['Tab'] },
      { type: 'key', keys: ['Enter'] },
      { type: 'scroll', x: 50, y: 60, dx: 0, dy: 300 },
      { type: 'wait', ms: 250 },
    ]);
  });
  it('rejects code that is not a literal call of the subset', () => {
    expect(errorOf(() => translate('pyautogui', 'pyautogui.click(x=__import__("os"))', ctx)).message).toContain('only literal arguments');
    expect(errorOf(() => translate('pyautogui', 'pyautogui.click(1, 2', ctx)).code).toBe('bad_pyautogui');
    expect(errorOf(() => translate('pyautogui', 'subprocess.run(["ls"])', ctx)).message).toContain('not in the supported pyautogui subset');
    expect(errorOf(() => translate('pyautogui', '', ctx)).code).toBe('bad_pyautogui');
  });
});

describe('element actions', () => {
  it('accepts objects and BrowserGym call strings', () => {
    expect(translate('element', { action: 'browser_click', ref: 'e5' }, ctx)).toEqual([{ type: 'click_ref', ref: 'e5' }]);
    expect(translate('element', "fill('e7', 'Ada')", ctx)).toEqual([{ type: 'fill_ref', ref: 'e7', text: 'Ada' }]);
    expect(translate('element', "select_option('e3', ['a', 'b'])", ctx)).toEqual([{ type: 'select_ref', ref: 'e3', values: ['a', 'b'] }]);
    expect(translate('element', "goto('http://x/')", ctx)).toEqual([{ type: 'goto', url: 'http://x/' }]);
    expect(translate('element', 'tab_focus(1)', ctx)).toEqual([{ type: 'switch_tab', index: 1 }]);
    expect(errorOf(() => translate('element', { action: 'click' }, ctx)).message).toContain('needs ref');
  });
});

describe('canonical input', () => {
  it('names unknown types and invalid fields', () => {
    expect(errorOf(() => translate('canonical', { type: 'warp' }, ctx))).toMatchObject({ code: 'unknown_action', message: expect.stringContaining('"warp"') });
    expect(errorOf(() => translate('canonical', { type: 'click', x: 'ten', y: 1 }, ctx))).toMatchObject({
      code: 'bad_action',
      message: expect.stringContaining('click: x'),
    });
  });
});

describe('key names', () => {
  it('normalises vendor names to Playwright names', () => {
    expect(['cmd', 'win', 'super', 'option', 'Return', 'esc', 'PgUp', 'f5', 'a', 'ArrowLeft'].map(normalizeKey)).toEqual([
      'Meta',
      'Meta',
      'Meta',
      'Alt',
      'Enter',
      'Escape',
      'PageUp',
      'F5',
      'a',
      'ArrowLeft',
    ]);
    expect(parseChord('ctrl++')).toEqual(['Control', '+']);
    expect(() => normalizeKey('hyper_q')).toThrow(/unknown key name/);
  });
});
