import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { capture, type CaptureRequest } from '../../../../src/in-container/browser-env/server/capture.js';

/** A 1280×720 PNG's first bytes (signature + IHDR): all `capture` reads of an image. */
const PNG_HEAD = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from([0, 0, 5, 0, 0, 0, 2, 208, 8, 2, 0, 0, 0])]);

/**
 * A page whose CDP sessions answer `Page.captureScreenshot` as Chromium does while a navigation swaps
 * the document ("Unable to capture screenshot") until `readyAt`, then with an image. It stands in for
 * Chromium because that moment cannot be produced on demand; the real case runs in the browser suites.
 */
function pageNavigatingUntil(readyAt: number): { page: Page; attempts: number[]; sessions: number } {
  const seen = { page: undefined as unknown as Page, attempts: [] as number[], sessions: 0 };
  const started = performance.now();
  const session = {
    send: async (method: string) => {
      if (method !== 'Page.captureScreenshot') throw new Error(`unexpected ${method}`);
      const at = performance.now() - started;
      seen.attempts.push(at);
      if (at < readyAt) throw new Error('cdpSession.send: Protocol error (Page.captureScreenshot): Unable to capture screenshot');
      return { data: PNG_HEAD.toString('base64') };
    },
  };
  seen.page = {
    context: () => ({
      newCDPSession: async () => {
        seen.sessions++;
        return session;
      },
    }),
  } as unknown as Page;
  return seen;
}

const request: CaptureRequest = { format: 'png', viewport: { width: 1280, height: 720 }, dpr: 1, deadlineMs: 2_000 };

describe('capture', () => {
  it('waits out a navigation that keeps Chromium from capturing for a few hundred ms, on a fresh CDP session each time', async () => {
    const navigating = pageNavigatingUntil(300);
    const shot = await capture(navigating.page, request);
    expect(shot).toMatchObject({ width: 1280, height: 720, mime: 'image/png', scale: 1 });
    expect(navigating.attempts.length).toBeGreaterThan(2);
    expect(navigating.sessions).toBe(navigating.attempts.length);
  });

  it('gives up with an error that says how often it tried and why', async () => {
    const stuck = pageNavigatingUntil(Number.POSITIVE_INFINITY);
    await expect(capture(stuck.page, request)).rejects.toThrow(/^the screenshot failed 5 times: .*Unable to capture screenshot/);
    // the pauses between attempts (0, 100, 250, 500 ms) bound what a broken page costs a step
    expect(stuck.attempts.at(-1)!).toBeLessThan(2_000);
  });
});
