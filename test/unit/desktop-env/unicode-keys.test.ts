import { describe, expect, it } from 'vitest';
import { KeycodeBinder, keysymName, keysymOf, typingSegments, type Keymap } from '../../../src/in-container/desktop-env/unicode-keys.js';

/** An in-memory keymap: which keysym each spare keycode holds, and every bind in order. */
class MemoryKeymap implements Keymap {
  readonly held = new Map<number, number>();
  readonly binds: [number, number][] = [];
  constructor(private readonly spare: number[]) {}
  async spareKeycodes() {
    return this.spare;
  }
  async bind(keycode: number, keysym: number) {
    this.held.set(keycode, keysym);
    this.binds.push([keycode, keysym]);
  }
}

const cps = (s: string) => [...s].map((c) => c.codePointAt(0)!);

describe('typing beyond the keymap', () => {
  it('names keysyms as X does: Latin-1 its own, the rest 0x01000000 + code point', () => {
    expect(keysymOf(0xfc)).toBe(0xfc);
    expect(keysymOf(0x2713)).toBe(0x1002713);
    expect(keysymOf(0x1f642)).toBe(0x101f642);
    expect(keysymName(0xfc)).toBe('U00FC');
    expect(keysymName(0x1f642)).toBe('U1F642');
  });

  it('splits text into keymap runs, key runs and bound runs of at most `slots` distinct characters', () => {
    expect(typingSegments('plain text', 4)).toEqual([{ kind: 'keymap', text: 'plain text' }]);
    expect(typingSegments('a\tb\r\n\nc', 4)).toEqual([
      { kind: 'keymap', text: 'a' },
      { kind: 'keys', names: ['Tab'] },
      { kind: 'keymap', text: 'b' },
      { kind: 'keys', names: ['Return', 'Return'] },
      { kind: 'keymap', text: 'c' },
    ]);
    expect(typingSegments('Grüße ✓', 4)).toEqual([
      { kind: 'keymap', text: 'Gr' },
      { kind: 'bound', codePoints: cps('üß') },
      { kind: 'keymap', text: 'e ' },
      { kind: 'bound', codePoints: cps('✓') },
    ]);
    expect(typingSegments('αβαγδ🙂', 3)).toEqual([
      { kind: 'bound', codePoints: cps('αβαγ') },
      { kind: 'bound', codePoints: cps('δ🙂') },
    ]);
    // control characters without a keysym are left out
    expect(typingSegments('a\u0007b\u0085c', 2)).toEqual([{ kind: 'keymap', text: 'abc' }]);
    expect(() => typingSegments('ü', 0)).toThrow(/no spare keycode to type ü/);
    expect(typingSegments('a\n', 0)).toHaveLength(2);
  });

  it('binds each character once, skips keycode 8, and reuses the least recently used binding when full', async () => {
    const keymap = new MemoryKeymap([8, 200, 201]);
    const binder = new KeycodeBinder(keymap);
    expect(await binder.slots()).toBe(2);
    await binder.ensure(cps('üß'));
    await binder.ensure(cps('ü'));
    expect(keymap.binds).toEqual([
      [200, 0xfc],
      [201, 0xdf],
    ]);
    await binder.ensure(cps('✓')); // ß was used less recently than ü
    expect(keymap.held.get(201)).toBe(0x1002713);
    expect(keymap.held.get(200)).toBe(0xfc);
    await binder.ensure(cps('✓ß'));
    expect(keymap.held.get(200)).toBe(0xdf);
    await expect(binder.ensure(cps('αβγ'))).rejects.toThrow(/3 characters at once, but only 2 spare keycodes/);
  });
});
