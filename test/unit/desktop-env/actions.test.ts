import { describe, expect, it } from 'vitest';
import { chord, toKeysym, UnknownKeyError } from '../../../src/in-container/desktop-env/keysyms.js';
import { encodePng } from '../../../src/in-container/desktop-env/x-display.js';
import { DesktopActionError, xdotoolArgs } from '../../../src/in-container/desktop-env/xdotool.js';
import { pixelAt } from '../../helpers/png.js';

const SCREEN = { width: 1280, height: 800 };

describe('desktop actions → xdotool', () => {
  it('clicks, double clicks with modifiers, drags and scrolls on the screen', () => {
    expect(xdotoolArgs({ type: 'click', x: 10, y: 20 }, SCREEN)).toEqual(['mousemove', '--sync', '10', '20', 'click', '--repeat', '1', '--delay', '60', '1']);
    expect(xdotoolArgs({ type: 'click', x: 10, y: 20, button: 'right', count: 2, modifiers: ['Shift'] }, SCREEN)).toEqual([
      'mousemove',
      '--sync',
      '10',
      '20',
      'keydown',
      'shift',
      'click',
      '--repeat',
      '2',
      '--delay',
      '60',
      '3',
      'keyup',
      'shift',
    ]);
    expect(xdotoolArgs({ type: 'scroll', dx: 0, dy: -300, x: 5, y: 5 }, SCREEN)).toEqual([
      'mousemove',
      '--sync',
      '5',
      '5',
      'click',
      '--repeat',
      '3',
      '--delay',
      '20',
      '4',
    ]);
    expect(
      xdotoolArgs(
        {
          type: 'drag',
          path: [
            { x: 1, y: 1 },
            { x: 9, y: 9 },
          ],
        },
        SCREEN,
      ),
    ).toContain('mousedown');
  });

  it('types any text literally and presses chords in X keysyms', () => {
    expect(xdotoolArgs({ type: 'type', text: '-n Ünï ✓' }, SCREEN)).toEqual(['type', '--delay', '4', '--', '-n Ünï ✓']);
    expect(xdotoolArgs({ type: 'key', keys: ['Control', 'Shift', 's'] }, SCREEN)).toEqual(['key', '--clearmodifiers', 'ctrl+shift+s']);
    expect(chord(['ctrl', 'Return'])).toBe('ctrl+Return');
    expect(toKeysym('ArrowDown')).toBe('Down');
    expect(toKeysym('F12')).toBe('F12');
    expect(toKeysym('+')).toBe('plus');
    expect(xdotoolArgs({ type: 'wait', ms: 10 }, SCREEN)).toBeNull();
  });

  it('refuses what the desktop cannot do, each with an error code an agent sees as last_action_error', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        if (err instanceof DesktopActionError) return err.code;
        if (err instanceof UnknownKeyError) return 'unknown_key';
        throw err;
      }
      return 'none';
    };
    expect(code(() => xdotoolArgs({ type: 'click', x: 1280, y: 10 }, SCREEN))).toBe('out_of_range');
    expect(code(() => xdotoolArgs({ type: 'move', x: -1, y: 10 }, SCREEN))).toBe('out_of_range');
    expect(code(() => xdotoolArgs({ type: 'key', keys: ['Hyperdrive'] }, SCREEN))).toBe('unknown_key');
    expect(code(() => xdotoolArgs({ type: 'goto', url: 'http://x' }, SCREEN))).toBe('unsupported_action');
    expect(code(() => xdotoolArgs({ type: 'click_ref', ref: 'e1' }, SCREEN))).toBe('unsupported_action');
  });
});

describe('X screenshots as PNG', () => {
  it('turns the X server’s BGRX pixels into an RGB PNG a decoder reads back', () => {
    const width = 4;
    const height = 3;
    const bgrx = Buffer.alloc(width * height * 4);
    // pixel (2, 1) pure red, (0, 2) blue
    bgrx.set([0, 0, 255, 0], (1 * width + 2) * 4);
    bgrx.set([255, 0, 0, 0], (2 * width + 0) * 4);
    const png = encodePng(bgrx, width, height);
    expect(pixelAt(png, 2, 1)).toEqual([255, 0, 0]);
    expect(pixelAt(png, 0, 2)).toEqual([0, 0, 255]);
    expect(pixelAt(png, 3, 0)).toEqual([0, 0, 0]);
  });
});
