/**
 * Typing characters the X keymap has no key for (anything beyond ASCII). xdotool's own way — bind a scratch
 * keycode, press it, unbind it at once — loses characters: an app looks the keycode up when it handles the
 * event, by which time the binding may be gone. Here each such character gets a spare keycode (one with no
 * keysyms) bound before the keys are pressed and kept bound afterwards, so the app's lookup always finds it.
 */

/** The X keysym of a Unicode code point: Latin-1 keeps its own keysyms, the rest are 0x01000000 + code point. */
export function keysymOf(codePoint: number): number {
  return codePoint >= 0xa0 && codePoint <= 0xff ? codePoint : 0x01000000 + codePoint;
}

/** The keysym's name as xdotool's `key` (XStringToKeysym) reads it: "U00FC" → 0xfc, "U2713" → 0x1002713. */
export function keysymName(codePoint: number): string {
  return `U${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Characters `xdotool type` sends as they are: printable ASCII. */
export function onKeymap(codePoint: number): boolean {
  return codePoint >= 0x20 && codePoint < 0x7f;
}

/** Control characters that are keys: xdotool's `type` sends a newline as the keysym Linefeed, which editors ignore. */
const CONTROL_KEYS: Record<number, string> = { 0x0a: 'Return', 0x0d: 'Return', 0x09: 'Tab', 0x08: 'BackSpace' };

export type TypingSegment = { kind: 'keymap'; text: string } | { kind: 'bound'; codePoints: number[] } | { kind: 'keys'; names: string[] };

/**
 * Text as runs `xdotool type` can send as they are, runs of keys (newline → Return, tab → Tab) and runs of
 * characters that need keycodes bound first, each of the latter holding at most `slots` distinct characters
 * (the spare keycodes there are).
 */
export function typingSegments(text: string, slots: number): TypingSegment[] {
  const segments: TypingSegment[] = [];
  let previous = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const last = segments[segments.length - 1];
    const key = CONTROL_KEYS[cp];
    const crlf = previous === 0x0d && cp === 0x0a;
    previous = cp;
    if (key) {
      if (crlf) continue;
      if (last?.kind === 'keys') last.names.push(key);
      else segments.push({ kind: 'keys', names: [key] });
      continue;
    }
    // other C0/C1 controls have no keysym: nothing to type
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
    if (!onKeymap(cp) && slots < 1) throw new Error(`the X keymap has no spare keycode to type ${ch} with`);
    if (onKeymap(cp)) {
      if (last?.kind === 'keymap') last.text += ch;
      else segments.push({ kind: 'keymap', text: ch });
      continue;
    }
    if (last?.kind === 'bound' && (last.codePoints.includes(cp) || new Set(last.codePoints).size < slots)) last.codePoints.push(cp);
    else segments.push({ kind: 'bound', codePoints: [cp] });
  }
  return segments;
}

/** The X keyboard mapping as far as binding spare keycodes needs it (XDisplay implements it). */
export interface Keymap {
  /** Keycodes with no keysym at all. */
  spareKeycodes(): Promise<number[]>;
  /** Binds `keysym` to `keycode` at every shift level; resolves once the X server has applied it. */
  bind(keycode: number, keysym: number): Promise<void>;
}

/** Spare keycodes bound to characters, reused least recently used first. */
export class KeycodeBinder {
  private spare: number[] | undefined;
  /** keycode → the code point bound to it, in least-recently-used order (Map keeps insertion order). */
  private bound = new Map<number, number>();

  constructor(private readonly keymap: Keymap) {}

  async slots(): Promise<number> {
    this.spare ??= (await this.keymap.spareKeycodes()).filter((k) => k > 8);
    return this.spare.length;
  }

  /** Binds every code point (at most slots() distinct ones) to a keycode, keeping the bindings it already has. */
  async ensure(codePoints: readonly number[]): Promise<void> {
    const wanted = [...new Set(codePoints)];
    if (wanted.length > (await this.slots())) throw new Error(`${wanted.length} characters at once, but only ${this.spare!.length} spare keycodes`);
    const holding = new Map([...this.bound].map(([code, cp]) => [cp, code]));
    for (const cp of wanted) {
      const code = holding.get(cp);
      if (code === undefined) continue;
      this.bound.delete(code);
      this.bound.set(code, cp);
    }
    for (const cp of wanted) {
      if (holding.has(cp)) continue;
      const free = this.spare!.find((k) => !this.bound.has(k));
      const code = free ?? this.leastRecent(wanted);
      this.bound.delete(code);
      await this.keymap.bind(code, keysymOf(cp));
      this.bound.set(code, cp);
    }
  }

  private leastRecent(keep: number[]): number {
    for (const [code, cp] of this.bound) if (!keep.includes(cp)) return code;
    throw new Error('every spare keycode holds a character of this run');
  }
}
