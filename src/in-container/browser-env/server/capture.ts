import type { CDPSession, Page } from 'playwright-core';

export interface CaptureRequest {
  format: 'png' | 'jpeg';
  quality?: number;
  viewport: { width: number; height: number };
  dpr: number;
  /** A CSS-px region to enlarge to the viewport's width (zoom); the whole viewport otherwise. */
  region?: [number, number, number, number];
  deadlineMs: number;
}

export interface Capture {
  data: string;
  mime: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  /** Screenshot pixels per CSS pixel. */
  scale: number;
}

const cdpSessions = new WeakMap<Page, Promise<CDPSession>>();

/** The page's CDP session, opened once and shared (screenshots, settle checks). */
export function cdpSession(page: Page): Promise<CDPSession> {
  let s = cdpSessions.get(page);
  if (!s) {
    s = page.context().newCDPSession(page);
    cdpSessions.set(page, s);
    s.catch(() => cdpSessions.delete(page));
  }
  return s;
}

/**
 * Pauses before each further attempt. Chromium answers "Unable to capture screenshot" for a moment while a
 * navigation swaps the page's document (a click that submits a form), so an attempt at once is not enough.
 */
export const CAPTURE_RETRY_PAUSES_MS = [0, 100, 250, 500];

/**
 * A screenshot through CDP at CSS-pixel scale (whatever the device pixel ratio), with a deadline per attempt
 * and retries on a fresh CDP session (page.screenshot can hang waiting for fonts), within two deadlines in all.
 */
export async function capture(page: Page, req: CaptureRequest): Promise<Capture> {
  const until = performance.now() + 2 * req.deadlineMs;
  let attempts = 0;
  for (;;) {
    try {
      attempts++;
      return await withTimeout(captureOnce(page, req), Math.max(1, Math.min(req.deadlineMs, until - performance.now())));
    } catch (err) {
      cdpSessions.delete(page);
      const pause = CAPTURE_RETRY_PAUSES_MS[attempts - 1];
      if (pause === undefined || performance.now() + pause >= until) {
        throw new Error(`the screenshot failed ${attempts} time${attempts === 1 ? '' : 's'}: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      }
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

async function captureOnce(page: Page, req: CaptureRequest): Promise<Capture> {
  const cdp = await cdpSession(page);
  const { width: vw, height: vh } = req.viewport;
  const [x0, y0, x1, y1] = req.region ?? [0, 0, vw, vh];
  const w = Math.max(1, Math.min(vw, x1) - Math.max(0, x0));
  const h = Math.max(1, Math.min(vh, y1) - Math.max(0, y0));
  const scale = req.region ? vw / w : 1;
  const params: Record<string, unknown> = { format: req.format, fromSurface: true, captureBeyondViewport: false };
  if (req.format === 'jpeg') params.quality = req.quality ?? 80;
  if (req.region || req.dpr !== 1) {
    // A clip is in document coordinates (offset by the visual viewport's scroll); its scale is output px per CSS px.
    const metrics = (await cdp.send('Page.getLayoutMetrics')) as { cssVisualViewport: { pageX: number; pageY: number } };
    const { pageX, pageY } = metrics.cssVisualViewport;
    params.clip = { x: pageX + Math.max(0, x0), y: pageY + Math.max(0, y0), width: w, height: h, scale };
  }
  const shot = (await cdp.send('Page.captureScreenshot', params)) as { data: string };
  const size = imageSize(Buffer.from(shot.data.slice(0, 4096), 'base64'));
  return { data: shot.data, mime: req.format === 'png' ? 'image/png' : 'image/jpeg', width: size.width, height: size.height, scale };
}

/** Width and height from a PNG (IHDR) or JPEG (SOFn) header. */
export function imageSize(head: Buffer): { width: number; height: number } {
  if (head.readUInt32BE(0) === 0x89504e47) return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  let i = 2;
  while (i + 9 < head.length) {
    if (head[i] !== 0xff) break;
    const marker = head[i + 1]!;
    const len = head.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: head.readUInt16BE(i + 7), height: head.readUInt16BE(i + 5) };
    }
    i += 2 + len;
  }
  throw new Error('cannot read the screenshot size');
}

export class DeadlineError extends Error {}

export function withTimeout<T>(p: Promise<T>, ms: number, what = 'screenshot'): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]);
}
