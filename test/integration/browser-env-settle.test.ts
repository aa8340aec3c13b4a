import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../src/in-container/browser-env/actions.js';
import { type BrowserEnvContainer, startBrowserEnv } from '../helpers/browser-env.js';
import { pixelAt } from '../helpers/png.js';

// The settle policy ends a step as soon as the page is stable; these pages change only after the click
// has returned (a timer, a fetch, animation frames and a CSS transition, a slow navigation), and the
// step's observation must show the change — in the screenshot, not only in the DOM.
const runId = `test-browser-settle-${process.pid}`;
const DELAYED = 'http://127.0.0.1:8000/delayed.html';
const RED: [number, number, number] = [255, 0, 0];
const GREEN: [number, number, number] = [0, 128, 0];
const BLUE: [number, number, number] = [0, 0, 255];
const BLACK: [number, number, number] = [0, 0, 0];
const WHITE: [number, number, number] = [255, 255, 255];
let env: BrowserEnvContainer;

beforeAll(async () => {
  env = await startBrowserEnv(runId);
});

afterAll(async () => {
  await env?.stop();
});

const shot = (obs: Observation) => Buffer.from(obs.screenshot.data, 'base64');
const panel = (obs: Observation) => pixelAt(shot(obs), 240, 300);

// Generous limits: the machine is shared; speed is measured by scripts/bench/browser.mjs, not here.
describe('the step observation after a delayed change', { timeout: 240_000 }, () => {
  it('shows what an 80 ms timer started by the click changed', async () => {
    const reset = await env.post('/reset', { start_url: DELAYED });
    expect(panel(reset)).toEqual(RED);
    const obs: Observation = await env.post('/step', { action: { type: 'click', x: 100, y: 60 } });
    expect(obs.last_action_error).toBeNull();
    expect(obs.title).toBe('later:done');
    expect(panel(obs)).toEqual(GREEN);
  });

  it('shows what a fetch that answers after 80 ms changed', async () => {
    const reset = await env.post('/reset', { start_url: DELAYED });
    expect(panel(reset)).toEqual(RED);
    const obs: Observation = await env.post('/step', { action: { type: 'click', x: 260, y: 60 } });
    expect(obs.title).toBe('fetched:true');
    expect(panel(obs)).toEqual(BLUE);
  });

  it('shows a modal opened over two animation frames with a 300 ms fade-in, fully faded in', async () => {
    const reset = await env.post('/reset', { start_url: DELAYED });
    expect(pixelAt(shot(reset), 800, 350)).toEqual(WHITE);
    const obs: Observation = await env.post('/step', { action: { type: 'click', x: 420, y: 60 } });
    expect(obs.title).toBe('modal:open');
    expect(pixelAt(shot(obs), 800, 350)).toEqual(BLACK);
  });

  it('shows the new page after a click on a link whose page takes 150 ms to arrive', async () => {
    await env.post('/reset', { start_url: DELAYED });
    const obs: Observation = await env.post('/step', { action: { type: 'click', x: 580, y: 60 } });
    expect(obs.last_action_error).toBeNull();
    expect(obs.title).toBe('next');
    expect(obs.url).toContain('file=next.html');
    expect(pixelAt(shot(obs), 600, 600)).toEqual(GREEN);
  });

  it('types into the new page when one step clicks a slow link and then types', async () => {
    await env.post('/reset', { start_url: DELAYED });
    // Without settling between the actions, the text would go to the old page's focused input and be lost.
    const obs: Observation = await env.post('/step', {
      actions: [
        { type: 'click', x: 580, y: 60 },
        { type: 'type', text: 'hello' },
      ],
    });
    expect(obs.last_action_error).toBeNull();
    expect(obs.title).toBe('next:hello');
    const aria = await env.get('/observation?aria=1');
    expect(aria.aria_snapshot).toContain('textbox "Query"');
    expect(aria.aria_snapshot).toContain('hello');
  });

  it('returns an unchanged page as it was when the action changes nothing', async () => {
    const reset = await env.post('/reset', { start_url: DELAYED });
    const obs: Observation = await env.post('/step', { action: { type: 'move', x: 900, y: 700 } });
    expect(obs.last_action_error).toBeNull();
    expect(obs.title).toBe(reset.title);
    expect(panel(obs)).toEqual(RED);
  });
});
