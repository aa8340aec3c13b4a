import type { CanonicalAction } from '../actions.js';

/** What a translator needs to know about the episode to place a vendor action in CSS pixels. */
export interface TranslateContext {
  /** CSS viewport of the active tab. */
  viewport: { width: number; height: number };
  /**
   * Size of the screenshot the model was shown, when it differs from the CSS viewport (the harness resized
   * it). Coordinates in screenshot pixels are scaled by viewport / screenshotSize.
   */
  screenshotSize?: { width: number; height: number };
  /** Last mouse position (CSS px), for vendor actions that start "from the cursor" (drag-to). */
  mouse: { x: number; y: number };
}

/** A vendor action that cannot be translated: the env server reports it as last_action_error and goes on. */
export class ActionInputError extends Error {
  constructor(
    readonly code: 'unknown_action' | 'bad_action' | 'bad_pyautogui' | 'bad_key',
    message: string,
  ) {
    super(message);
  }
}

export type Translator = (action: unknown, ctx: TranslateContext) => CanonicalAction[];

/** CSS pixels one wheel notch scrolls (Anthropic scroll_amount, pyautogui/OSWorld scroll clicks, Qwen scroll). */
export const NOTCH_PX = 100;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function num(v: unknown, what: string): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new ActionInputError('bad_action', `${what} must be a number, got ${JSON.stringify(v)}`);
  return n;
}

export function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new ActionInputError('bad_action', `${what} must be a string, got ${JSON.stringify(v)}`);
  return v;
}

/** [x, y] pair → numbers. */
export function pair(v: unknown, what: string): [number, number] {
  if (!Array.isArray(v) || v.length !== 2) throw new ActionInputError('bad_action', `${what} must be [x, y], got ${JSON.stringify(v)}`);
  return [num(v[0], `${what}[0]`), num(v[1], `${what}[1]`)];
}

/** Screenshot pixels → CSS pixels (identity unless the model saw a resized screenshot). */
export function fromScreenshot(x: number, y: number, ctx: TranslateContext): { x: number; y: number } {
  const s = ctx.screenshotSize;
  if (!s) return { x, y };
  return { x: (x * ctx.viewport.width) / s.width, y: (y * ctx.viewport.height) / s.height };
}
