/**
 * Key names → X keysyms as xdotool takes them. Canonical actions name keys the Playwright way ("Control",
 * "Enter", "ArrowUp"); the vendor schemas' names are translated into those before they get here, and
 * xdotool-style names ("ctrl", "Return") are accepted as they are.
 */
const NAMED: Record<string, string> = {
  control: 'ctrl',
  ctrl: 'ctrl',
  shift: 'shift',
  alt: 'alt',
  meta: 'super',
  super: 'super',
  cmd: 'super',
  command: 'super',
  win: 'super',
  enter: 'Return',
  return: 'Return',
  backspace: 'BackSpace',
  escape: 'Escape',
  esc: 'Escape',
  tab: 'Tab',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'Page_Up',
  page_up: 'Page_Up',
  pagedown: 'Page_Down',
  page_down: 'Page_Down',
  arrowup: 'Up',
  arrowdown: 'Down',
  arrowleft: 'Left',
  arrowright: 'Right',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  space: 'space',
  ' ': 'space',
  capslock: 'Caps_Lock',
  printscreen: 'Print',
  menu: 'Menu',
  contextmenu: 'Menu',
};

const PUNCTUATION: Record<string, string> = {
  '+': 'plus',
  '-': 'minus',
  '=': 'equal',
  ',': 'comma',
  '.': 'period',
  '/': 'slash',
  '\\': 'backslash',
  ';': 'semicolon',
  "'": 'apostrophe',
  '`': 'grave',
  '[': 'bracketleft',
  ']': 'bracketright',
  '!': 'exclam',
  '@': 'at',
  '#': 'numbersign',
  $: 'dollar',
  '%': 'percent',
  '^': 'asciicircum',
  '&': 'ampersand',
  '*': 'asterisk',
  '(': 'parenleft',
  ')': 'parenright',
  _: 'underscore',
  ':': 'colon',
  '"': 'quotedbl',
  '<': 'less',
  '>': 'greater',
  '?': 'question',
  '{': 'braceleft',
  '}': 'braceright',
  '|': 'bar',
  '~': 'asciitilde',
};

/** Keysyms given in X's own spelling pass as they are. */
const X_NAMES = new Set([...Object.values(NAMED), 'Control_L', 'Control_R', 'Shift_L', 'Shift_R', 'Alt_L', 'Alt_R', 'Super_L', 'Super_R', 'KP_Enter']);

export class UnknownKeyError extends Error {}

export function toKeysym(key: string): string {
  if (X_NAMES.has(key)) return key;
  const named = NAMED[key.toLowerCase()];
  if (named) return named;
  if (PUNCTUATION[key]) return PUNCTUATION[key];
  if (/^[a-zA-Z0-9]$/.test(key)) return key;
  if (/^F([1-9]|1[0-9]|2[0-4])$/i.test(key)) return key.toUpperCase();
  throw new UnknownKeyError(
    `unknown key ${JSON.stringify(key)}: use a Playwright key name (Enter, Control, ArrowUp, F5, a, …) or an X keysym (Return, ctrl, Page_Down)`,
  );
}

/** One chord (["Control", "s"]) as xdotool's "ctrl+s". */
export function chord(keys: readonly string[]): string {
  return keys.map(toKeysym).join('+');
}
