/**
 * Key names from every vendor vocabulary (xdotool for Anthropic, OpenAI's upper-case names, pyautogui and
 * OSWorld names) normalised to Playwright key names.
 */
const ALIASES: Record<string, string> = {
  ctrl: 'Control',
  control: 'Control',
  ctl: 'Control',
  ctrlleft: 'Control',
  ctrlright: 'Control',
  control_l: 'Control',
  control_r: 'Control',
  shift: 'Shift',
  shiftleft: 'Shift',
  shiftright: 'Shift',
  shift_l: 'Shift',
  shift_r: 'Shift',
  alt: 'Alt',
  option: 'Alt',
  opt: 'Alt',
  altleft: 'Alt',
  altright: 'Alt',
  alt_l: 'Alt',
  alt_r: 'Alt',
  meta: 'Meta',
  cmd: 'Meta',
  command: 'Meta',
  win: 'Meta',
  windows: 'Meta',
  super: 'Meta',
  super_l: 'Meta',
  super_r: 'Meta',
  winleft: 'Meta',
  winright: 'Meta',
  meta_l: 'Meta',
  enter: 'Enter',
  return: 'Enter',
  kp_enter: 'Enter',
  tab: 'Tab',
  space: ' ',
  spacebar: ' ',
  backspace: 'Backspace',
  back_space: 'Backspace',
  bksp: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  escape: 'Escape',
  esc: 'Escape',
  insert: 'Insert',
  ins: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  page_up: 'PageUp',
  pgup: 'PageUp',
  prior: 'PageUp',
  pagedown: 'PageDown',
  page_down: 'PageDown',
  pgdn: 'PageDown',
  next: 'PageDown',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  capslock: 'CapsLock',
  caps_lock: 'CapsLock',
  numlock: 'NumLock',
  scrolllock: 'ScrollLock',
  printscreen: 'PrintScreen',
  print: 'PrintScreen',
  prtsc: 'PrintScreen',
  minus: '-',
  plus: '+',
  equal: '=',
  comma: ',',
  period: '.',
  slash: '/',
  backslash: '\\',
  semicolon: ';',
  apostrophe: "'",
  quote: "'",
  grave: '`',
  bracketleft: '[',
  bracketright: ']',
};

export class KeyNameError extends Error {}

/** One key name from any vocabulary → its Playwright name ("ctrl" → "Control", "Return" → "Enter", "a" → "a"). */
export function normalizeKey(raw: string): string {
  const key = raw.trim();
  if (key.length === 0) {
    if (raw === ' ') return ' ';
    throw new KeyNameError('empty key name');
  }
  if (key.length === 1) return key;
  const alias = ALIASES[key.toLowerCase()];
  if (alias) return alias;
  const fn = /^f([1-9]|1[0-9]|2[0-4])$/i.exec(key);
  if (fn) return `F${fn[1]}`;
  // Playwright's own names (e.g. "NumpadAdd", "KeyA", "Digit1") pass through.
  if (/^[A-Z][A-Za-z0-9]+$/.test(key)) return key;
  throw new KeyNameError(`unknown key name "${raw}"`);
}

/** A chord written with "+" (xdotool "ctrl+shift+t", "Control+s") → Playwright names. A lone "+" is the plus key. */
export function parseChord(chord: string): string[] {
  if (chord === '+') return ['+'];
  const parts = chord.split('+');
  // "ctrl++" means Control and the plus key.
  const keys = parts.map((p, i) => (p === '' && i === parts.length - 1 && parts.length > 1 ? '+' : p)).filter((p, i, all) => !(p === '' && i < all.length - 1));
  return keys.map(normalizeKey);
}
