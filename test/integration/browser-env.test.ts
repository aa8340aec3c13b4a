import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthResponse, Observation } from '../../src/in-container/browser-env/actions.js';
import { CLICK_BRAVO } from '../fixtures/browser-pages/recorded-actions.js';
import { type BrowserEnvContainer, refOf, startBrowserEnv } from '../helpers/browser-env.js';
import { rawHttp } from '../helpers/raw-http.js';

const runId = `test-browser-env-${process.pid}`;
const TARGETS = 'http://127.0.0.1:8000/targets.html';
let env: BrowserEnvContainer;

beforeAll(async () => {
  env = await startBrowserEnv(runId);
});

afterAll(async () => {
  await env?.stop();
});

function png(obs: Observation): Buffer {
  return Buffer.from(obs.screenshot.data, 'base64');
}

// Generous limits: the machine is shared; speed is measured by scripts/bench/browser.mjs, not here.
describe('the browser image', { timeout: 240_000 }, () => {
  it('runs the live view, the services and the env server, and start-browser-env is idempotent', async () => {
    const health = await env.get<HealthResponse>('/health');
    expect(health).toEqual({ ok: true, browser: 'running', restarts: 0 });
    const ps = await env.sandbox.exec(['sh', '-c', 'ps -eo args']);
    for (const proc of ['Xvfb :99', 'openbox', 'x11vnc', 'websockify', 'server/main.js']) expect(ps.stdout).toContain(proc);
    const site = await env.sandbox.exec(['curl', '-sf', 'http://127.0.0.1:8000/targets.html']); // started from services.d
    expect(site.stdout).toContain('Bravo');
    expect(ps.stdout).toMatch(/x11vnc .*-viewonly/);
    expect(ps.stdout).toMatch(/chromium .*--disable-dev-shm-usage/);
    expect(ps.stdout).not.toMatch(/chromium .*--headless/); // headed on the Xvfb display, so VNC shows it
    const vnc = await env.sandbox.exec(['curl', '-sf', 'http://127.0.0.1:6080/vnc.html']);
    expect(vnc.stdout).toContain('noVNC');
    const again = await env.sandbox.exec(['/opt/openforge/bin/start-browser-env'], { timeoutSec: 60 });
    expect(again.exitCode).toBe(0);
    const count = await env.sandbox.exec(['sh', '-c', 'pgrep -c -f "^node .*server/main.js"']);
    expect(count.stdout.trim()).toBe('1');
  });
});

describe('the env server', { timeout: 240_000 }, () => {
  it('resets to a start URL and reports the screenshot contract', async () => {
    const obs = await env.post('/reset', { start_url: TARGETS, viewport: { width: 1280, height: 800 } });
    expect(obs.url).toBe(TARGETS);
    expect(obs.title).toBe('targets');
    expect(obs.viewport).toEqual({ width: 1280, height: 800 });
    expect(obs.screenshot).toMatchObject({ mime: 'image/png', width: 1280, height: 800 });
    expect(png(obs).subarray(1, 4).toString()).toBe('PNG');
    expect(obs).toMatchObject({ device_pixel_ratio: 1, scale: 1, last_action_error: null });
    expect(obs.tabs).toEqual([{ index: 0, url: TARGETS, title: 'targets', active: true }]);
    expect(Object.keys(obs.timings).sort()).toEqual(['action_ms', 'capture_ms', 'settle_ms']);
  });

  for (const dpr of [1, 2]) {
    describe(`at device pixel ratio ${dpr}`, () => {
      for (const { schema, action } of CLICK_BRAVO) {
        it(`a recorded ${schema} click lands on the button`, async () => {
          const reset = await env.post('/reset', { start_url: TARGETS, device_scale_factor: dpr });
          // Screenshot pixels are CSS pixels whatever the DPR, so the model's coordinates need no DPR factor.
          expect(reset.screenshot).toMatchObject({ width: 1280, height: 800 });
          expect(reset.device_pixel_ratio).toBe(dpr);
          const obs = await env.post('/step', { schema, action });
          expect(obs.last_action_error).toBeNull();
          expect(obs.title).toBe('hit:B');
        });
      }

      it('an element action by ref hits the element from the ARIA snapshot', async () => {
        await env.post('/reset', { start_url: TARGETS, device_scale_factor: dpr });
        const seen = await env.get('/observation?aria=1');
        const obs = await env.post('/step', { schema: 'element', action: { action: 'click', ref: refOf(seen.aria_snapshot, 'button', 'Bravo') } });
        expect(obs.last_action_error).toBeNull();
        expect(obs.title).toBe('hit:B');
        expect(obs.aria_snapshot).toContain('button "Bravo"');
      });
    });
  }

  it('runs a list of actions: typing, key chords, select by ref, double click', async () => {
    await env.post('/reset', { start_url: TARGETS });
    let obs = await env.post('/step', {
      actions: [
        { type: 'click', x: 100, y: 210 },
        { type: 'type', text: 'Ada' },
      ],
    });
    expect(obs.title).toBe('name:Ada');
    obs = await env.post('/step', { schema: 'anthropic', action: { action: 'key', text: 'ctrl+k' } });
    expect(obs.title).toBe('key:ctrl+k');
    const seen = await env.get('/observation?aria=1');
    obs = await env.post('/step', { schema: 'element', action: `select_option('${refOf(seen.aria_snapshot, 'combobox', 'Color')}', 'blue')` });
    expect(obs.title).toBe('color:blue');
    obs = await env.post('/step', { schema: 'openai', action: { type: 'double_click', x: 90, y: 65 } });
    expect(obs.title).toBe('hit:A:x2');
  });

  it('waits until text or a label is shown, and says wait_timeout when none is', async () => {
    await env.post('/reset', { start_url: TARGETS });
    expect((await env.post('/step', { action: { type: 'wait', ms: 30_000, until: 'Open in new tab' } })).last_action_error).toBeNull();
    expect((await env.post('/step', { schema: 'anthropic', action: { action: 'wait', duration: 30, text: 'Color' } })).last_action_error).toBeNull();
    const none = await env.post('/step', { action: { type: 'wait', ms: 500, until: 'a text nothing shows' } });
    expect(none.last_action_error).toMatchObject({ code: 'wait_timeout' });
  });

  it('follows a link that opens a new tab, and switches back', async () => {
    await env.post('/reset', { start_url: TARGETS });
    let obs = await env.post('/step', { action: { type: 'click', x: 60, y: 328 } });
    expect(obs.tabs).toHaveLength(2);
    expect(obs.url).toBe(`${TARGETS}?popup=1`);
    expect(obs.tabs[1]).toMatchObject({ active: true, url: `${TARGETS}?popup=1` });
    obs = await env.post('/step', { action: { type: 'switch_tab', index: 0 } });
    expect(obs.url).toBe(TARGETS);
    expect(obs.tabs[0]!.active).toBe(true);
  });

  it('zooms into a region: the next screenshot is that region enlarged, with its scale', async () => {
    await env.post('/reset', { start_url: TARGETS });
    const obs = await env.post('/step', { schema: 'anthropic', action: { action: 'zoom', region: [0, 0, 320, 200] } });
    expect(obs.scale).toBe(4);
    expect(obs.screenshot).toMatchObject({ width: 1280, height: 800 });
    const next = await env.get('/observation');
    expect(next.scale).toBe(1);
  });

  it('returns JPEG when asked', async () => {
    const obs = await env.post('/step', { action: { type: 'screenshot' }, options: { image_format: 'jpeg', jpeg_quality: 60 } });
    expect(obs.screenshot).toMatchObject({ mime: 'image/jpeg', width: 1280, height: 800 });
    expect(png(obs).subarray(0, 2).toString('hex')).toBe('ffd8');
  });

  it('records done with the answer', async () => {
    const obs = await env.post('/step', { schema: 'qwen3vl', action: { name: 'computer_use', arguments: { action: 'answer', text: 'Bravo' } } });
    expect(obs.finished).toEqual({ status: 'done', answer: 'Bravo' });
  });

  it('evaluates with the Harbor reward contract', async () => {
    const res = await env.post<{ reward: number; stdout: string }>('/evaluate', { command: 'echo checking; echo 0.5 > /logs/verifier/reward.txt' });
    expect(res.reward).toBe(0.5);
    expect(res.stdout).toBe('checking\n');
    await expect(env.post('/evaluate', { command: 'true' })).rejects.toMatchObject({ status: 422 });
  });

  it('rejects a malformed request with 400 naming the field', async () => {
    await expect(env.post('/step', { schema: 'klingon', action: {} })).rejects.toMatchObject({ status: 400, body: expect.stringContaining('schema') });
    await expect(env.post('/step', {})).rejects.toMatchObject({ status: 400, body: expect.stringContaining('(a list)') });
  });

  it('answers a request its HTTP parser refuses with an error naming the problem, and serves on', async () => {
    const { hostname, port } = new URL(env.url);
    const broken = await rawHttp(Number(port), hostname, `GET /health HTTP/1.1\r\nHost: env\r\nX-Token: abc\u0001def\r\n\r\n`);
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/character HTTP does not allow.*line break or control character/);
    expect((await env.get<HealthResponse>('/health')).ok).toBe(true);
  });
});

describe('the MCP server', { timeout: 240_000 }, () => {
  it('lists its tools and completes a small task through a real MCP client', async () => {
    const client = new Client({ name: 'openforge-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${env.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'browser_reset',
          'browser_observe',
          'browser_click',
          'browser_type',
          'browser_key',
          'browser_click_ref',
          'browser_fill_ref',
          'browser_action',
        ]),
      );
      const reset = (await client.callTool({ name: 'browser_reset', arguments: { start_url: TARGETS } })) as {
        content: { type: string; text?: string; mimeType?: string }[];
      };
      expect(reset.content.some((c) => c.type === 'image' && c.mimeType === 'image/png')).toBe(true);
      const seen = (await client.callTool({ name: 'browser_observe', arguments: { aria: true } })) as { content: { type: string; text?: string }[] };
      const aria = seen.content
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('\n');
      await client.callTool({ name: 'browser_fill_ref', arguments: { ref: refOf(aria, 'textbox', 'Name'), text: 'Grace' } });
      const after = (await client.callTool({ name: 'browser_click', arguments: { x: 650, y: 425 } })) as {
        content: { type: string; text?: string }[];
        isError?: boolean;
      };
      expect(after.isError).toBeFalsy();
      expect(JSON.parse(after.content[0]!.text!).title).toBe('hit:B');
      const state = await env.get('/observation?aria=1');
      expect(state.aria_snapshot).toContain('textbox "Name" [ref=');
      expect(state.aria_snapshot).toContain('Grace');
      const bad = (await client.callTool({ name: 'browser_click_ref', arguments: { ref: 'e999' } })) as { isError?: boolean; content: { text?: string }[] };
      expect(bad.isError).toBeFalsy();
      expect(JSON.parse(bad.content[0]!.text!).last_action_error.code).toBe('missing_ref');
      expect(bad.content[1]!.text).toMatch(/^Error: the action failed \(missing_ref: /);
    } finally {
      await client.close();
    }
  });
});
