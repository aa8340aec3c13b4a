import { KeyNameError, normalizeKey, parseChord } from '../keys.js';
import { ActionInputError } from './types.js';

/** normalizeKey with a translator error. */
export function key(raw: string): string {
  try {
    return normalizeKey(raw);
  } catch (err) {
    throw new ActionInputError('bad_key', `${(err as KeyNameError).message}; use names like "Enter", "ctrl", "Page_Down", "a"`);
  }
}

/** xdotool key syntax: "ctrl+s", or several chords separated by spaces ("ctrl+a Delete"). */
export function chords(text: string): string[][] {
  try {
    return text.trim().split(/\s+/).filter(Boolean).map(parseChord);
  } catch (err) {
    throw new ActionInputError('bad_key', `${(err as KeyNameError).message} in "${text}"; use xdotool names like "ctrl+s", "Return"`);
  }
}
