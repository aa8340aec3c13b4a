import { execFile } from 'node:child_process';
import type { CanonicalAction } from '../browser-env/actions.js';
import { chord, toKeysym } from './keysyms.js';

/** Pixels per scroll notch, as the browser env's translators count them (translators/types.ts NOTCH_PX). */
const NOTCH_PX = 100;
const BUTTONS: Record<string, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 };
/** Delay between typed characters: LibreOffice drops keys sent with none. */
const TYPE_DELAY_MS = 4;

/** An action the desktop cannot run, or one that failed: becomes the observation's last_action_error. */
export class DesktopActionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Screen {
  width: number;
  height: number;
}

/**
 * A canonical action as one xdotool command line (its commands chained, so one process runs the whole
 * action), or null for actions with nothing to send (wait, screenshot).
 */
export function xdotoolArgs(action: CanonicalAction, screen: Screen): string[] | null {
  const at = (x: number, y: number): string[] => {
    if (x < 0 || y < 0 || x >= screen.width || y >= screen.height) {
      throw new DesktopActionError('out_of_range', `(${x}, ${y}) is off the screen (${screen.width}×${screen.height})`);
    }
    return ['mousemove', '--sync', String(Math.round(x)), String(Math.round(y))];
  };
  const button = (name: string | undefined) => String(BUTTONS[name ?? 'left'] ?? 1);
  switch (action.type) {
    case 'move':
      return at(action.x, action.y);
    case 'click': {
      const mods = (action.modifiers ?? []).map(toKeysym);
      const click = ['click', '--repeat', String(action.count ?? 1), '--delay', '60', button(action.button)];
      return [...at(action.x, action.y), ...mods.flatMap((m) => ['keydown', m]), ...click, ...mods.flatMap((m) => ['keyup', m])];
    }
    case 'mouse_down':
      return ['mousedown', button(action.button)];
    case 'mouse_up':
      return ['mouseup', button(action.button)];
    case 'drag': {
      const [first, ...rest] = action.path;
      return [...at(first!.x, first!.y), 'mousedown', '1', ...rest.flatMap((p) => ['sleep', '0.05', ...at(p.x, p.y)]), 'sleep', '0.05', 'mouseup', '1'];
    }
    case 'scroll': {
      const where = action.x !== undefined && action.y !== undefined ? at(action.x, action.y) : [];
      const clicks = (delta: number, neg: number, pos: number) =>
        delta === 0 ? [] : ['click', '--repeat', String(Math.max(1, Math.round(Math.abs(delta) / NOTCH_PX))), '--delay', '20', String(delta > 0 ? pos : neg)];
      return [...where, ...clicks(action.dy, 4, 5), ...clicks(action.dx, 6, 7)];
    }
    case 'type':
      return action.text === '' ? null : typeArgs(action.text);
    case 'key':
      return ['key', '--clearmodifiers', chord(action.keys)];
    case 'key_down':
      return ['keydown', toKeysym(action.key)];
    case 'key_up':
      return ['keyup', toKeysym(action.key)];
    case 'wait':
    case 'screenshot':
      return null;
    default:
      throw new DesktopActionError(
        'unsupported_action',
        `${action.type} has no meaning on the desktop (it acts on a browser page); use pointer and keyboard actions: click, move, drag, scroll, type, key, wait`,
      );
  }
}

/** Text whose characters are all on the keymap (see unicode-keys.ts for the rest). */
export function typeArgs(text: string): string[] {
  return ['type', '--delay', String(TYPE_DELAY_MS), '--', text];
}

/** Presses keys by keysym name, each bound to a keycode beforehand. */
export function keyNamesArgs(names: string[]): string[] {
  return ['key', '--delay', String(TYPE_DELAY_MS), ...names];
}

/** Runs xdotool; a failure (bad display, unknown keysym) is an action error naming what xdotool said. */
export function runXdotool(args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('xdotool', args, { timeout: timeoutMs, env: process.env }, (err, _stdout, stderr) => {
      const said = stderr.trim();
      if (err) return reject(new DesktopActionError(err.killed ? 'timeout' : 'action_failed', `xdotool ${args[0]} failed: ${said || err.message}`));
      if (/No such key name|Invalid/i.test(said)) return reject(new DesktopActionError('unknown_key', `xdotool: ${said}`));
      resolve();
    });
  });
}
