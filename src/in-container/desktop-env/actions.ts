import { z } from 'zod';
import type { ActionError } from '../browser-env/actions.js';
import type { Mark } from './marks.js';

/**
 * The desktop env server's own request and observation shapes (docs/desktop.md). Actions are the browser
 * env's: canonical actions, or any vendor schema its translators take, in screen pixels.
 */

/** POST /reset body: the apps the episode starts with. */
export const DesktopResetSchema = z.looseObject({
  /** Shell commands started in order (detached, on the desktop's display and D-Bus), e.g. "libreoffice --calc /root/Desktop/a.xlsx". */
  launch: z.array(z.string().min(1)).optional(),
  /** Wait until a window whose title contains this text is shown (the first app is up), at most `timeout_ms`. */
  wait_for_window: z.string().min(1).optional(),
  timeout_ms: z.number().int().min(100).max(600_000).optional(),
});
export type DesktopReset = z.infer<typeof DesktopResetSchema>;

export interface DesktopWindow {
  id: number;
  title: string;
  active: boolean;
}

export interface DesktopObservation {
  screenshot: { data: string; mime: 'image/png'; width: number; height: number };
  /** The screen in pixels (named viewport as in the browser env, so agents and translators read one field). */
  viewport: { width: number; height: number };
  device_pixel_ratio: 1;
  scale: 1;
  /** Always empty: the desktop has no page URL (kept so a browser agent reads the same fields). */
  url: '';
  /** Title of the focused window. */
  title: string;
  tabs: [];
  windows: DesktopWindow[];
  /** The accessibility tree (AT-SPI) as OSWorld's a11y_tree XML, when asked for. */
  a11y_tree?: string;
  /** Set-of-marks, when asked for: the numbered elements whose boxes and numbers are drawn on the screenshot. */
  marks?: Mark[];
  last_action_error: null | ActionError;
  timings: { action_ms: number; settle_ms: number; capture_ms: number };
  finished?: { status: 'done' | 'fail'; answer?: string; reason?: string };
}

export interface DesktopHealth {
  ok: boolean;
  display: string;
  screen: { width: number; height: number };
}
