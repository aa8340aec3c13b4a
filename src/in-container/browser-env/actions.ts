import { z } from 'zod';

/**
 * The canonical browser action set (docs/browser.md). Every vendor schema (Anthropic, OpenAI, Qwen,
 * OSWorld, pyautogui, element refs) is translated into these before the env server runs them.
 * Coordinates are CSS pixels of the viewport; scroll deltas are CSS pixels.
 */

const Coord = z.number().finite();
const MouseButton = z.enum(['left', 'right', 'middle', 'back', 'forward']);
export type MouseButton = z.infer<typeof MouseButton>;

export const CanonicalActionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('click'),
    x: Coord,
    y: Coord,
    button: MouseButton.optional(),
    count: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
    /** Playwright key names held during the click, e.g. ["Shift"]. */
    modifiers: z.array(z.string().min(1)).optional(),
  }),
  z.object({ type: z.literal('move'), x: Coord, y: Coord }),
  z.object({ type: z.literal('mouse_down'), button: MouseButton.optional() }),
  z.object({ type: z.literal('mouse_up'), button: MouseButton.optional() }),
  z.object({ type: z.literal('drag'), path: z.array(z.object({ x: Coord, y: Coord })).min(2) }),
  z.object({ type: z.literal('scroll'), x: Coord.optional(), y: Coord.optional(), dx: Coord, dy: Coord }),
  z.object({ type: z.literal('type'), text: z.string() }),
  /** One chord in Playwright key names, e.g. ["Control","s"] or ["Enter"]. */
  z.object({ type: z.literal('key'), keys: z.array(z.string().min(1)).min(1) }),
  z.object({ type: z.literal('key_down'), key: z.string().min(1) }),
  z.object({ type: z.literal('key_up'), key: z.string().min(1) }),
  /**
   * Pauses `ms`; with `until`, only until text containing it is shown (an accessible element's name on the desktop,
   * visible text or a label in the browser), and fails with wait_timeout when none is within `ms`.
   */
  z.object({ type: z.literal('wait'), ms: z.number().finite().min(0), until: z.string().min(1).optional() }),
  z.object({ type: z.literal('screenshot') }),
  /** Region [x0,y0,x1,y1] in CSS px; the observation's screenshot is that region, enlarged. */
  z.object({ type: z.literal('zoom'), region: z.tuple([Coord, Coord, Coord, Coord]) }),
  z.object({ type: z.literal('click_ref'), ref: z.string().min(1) }),
  z.object({ type: z.literal('fill_ref'), ref: z.string().min(1), text: z.string() }),
  z.object({ type: z.literal('select_ref'), ref: z.string().min(1), values: z.array(z.string()) }),
  z.object({ type: z.literal('hover_ref'), ref: z.string().min(1) }),
  z.object({ type: z.literal('goto'), url: z.string().min(1) }),
  z.object({ type: z.literal('go_back') }),
  z.object({ type: z.literal('go_forward') }),
  z.object({ type: z.literal('new_tab'), url: z.string().min(1).optional() }),
  z.object({ type: z.literal('switch_tab'), index: z.number().int().min(0) }),
  z.object({ type: z.literal('close_tab'), index: z.number().int().min(0).optional() }),
  z.object({ type: z.literal('done'), answer: z.string().optional() }),
  z.object({ type: z.literal('fail'), reason: z.string().optional() }),
]);
export type CanonicalAction = z.infer<typeof CanonicalActionSchema>;
export type CanonicalActionType = CanonicalAction['type'];

/** The action vocabularies POST /step accepts (`schema` field); "canonical" is the default. */
export const ACTION_SCHEMAS = ['canonical', 'anthropic', 'openai', 'qwen25vl', 'qwen3vl', 'osworld', 'pyautogui', 'element'] as const;
export const ActionSchemaNameSchema = z.enum(ACTION_SCHEMAS);
export type ActionSchemaName = z.infer<typeof ActionSchemaNameSchema>;

export const ViewportSchema = z.object({ width: z.number().int().min(100).max(7680), height: z.number().int().min(100).max(4320) });
export type Viewport = z.infer<typeof ViewportSchema>;

/** POST /reset body. */
export const ResetRequestSchema = z.looseObject({
  start_url: z.string().min(1).optional(),
  viewport: ViewportSchema.optional(),
  /** Device pixel ratio of the browser context (screenshots are still CSS px). Default 1. */
  device_scale_factor: z.number().min(1).max(4).optional(),
});
export type ResetRequest = z.infer<typeof ResetRequestSchema>;

export const StepOptionsSchema = z.looseObject({
  /** Include an ARIA snapshot with element refs in the observation. */
  aria: z.boolean().optional(),
  /** Screenshot encoding; default png. */
  image_format: z.enum(['png', 'jpeg']).optional(),
  jpeg_quality: z.number().int().min(1).max(100).optional(),
  /** Skip the screenshot (e.g. when only the ARIA snapshot is wanted). */
  screenshot: z.boolean().optional(),
  /** Size of the screenshot the model saw, for schemas whose coordinates are in screenshot pixels (smart-resize). */
  screenshot_size: z.object({ width: z.number().positive(), height: z.number().positive() }).optional(),
});
export type StepOptions = z.infer<typeof StepOptionsSchema>;

/** POST /step body: one `action` or a list of `actions`, in the vocabulary named by `schema`. */
export const StepRequestSchema = z.looseObject({
  schema: ActionSchemaNameSchema.optional(),
  action: z.unknown().optional(),
  actions: z.array(z.unknown()).optional(),
  options: StepOptionsSchema.optional(),
});
export type StepRequest = z.infer<typeof StepRequestSchema>;

export interface ActionError {
  /** Stable machine code, e.g. "unknown_action", "out_of_range", "bad_pyautogui", "missing_ref", "action_failed", "timeout". */
  code: string;
  message: string;
}

export interface Tab {
  index: number;
  url: string;
  title: string;
  active: boolean;
}

export interface Observation {
  screenshot: { data: string /* base64 */; mime: 'image/png' | 'image/jpeg'; width: number; height: number };
  viewport: { width: number; height: number };
  device_pixel_ratio: number;
  /** Screenshot pixels per CSS pixel (1 unless a zoom action enlarged a region). */
  scale: number;
  url: string;
  title: string;
  tabs: Tab[];
  aria_snapshot?: string;
  last_action_error: null | ActionError;
  timings: { action_ms: number; settle_ms: number; capture_ms: number };
  /** Set once a `done` or `fail` action ran in this episode. */
  finished?: { status: 'done' | 'fail'; answer?: string; reason?: string };
}

/** GET /health. */
export interface HealthResponse {
  ok: boolean;
  browser: 'running' | 'restarted';
  restarts: number;
}

/** POST /evaluate. */
export interface EvaluateResponse {
  reward: number;
  details?: unknown;
  stdout: string;
  stderr: string;
}
