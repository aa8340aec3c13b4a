import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthResponse } from '../../src/in-container/browser-env/actions.js';
import { type BrowserEnvContainer, startBrowserEnv } from '../helpers/browser-env.js';

const runId = `test-browser-faults-${process.pid}`;
const TARGETS = 'http://127.0.0.1:8000/targets.html';
const SETTLE_CAP_MS = 1000;
let env: BrowserEnvContainer;

beforeAll(async () => {
  env = await startBrowserEnv(runId, {
    OPENFORGE_SETTLE_CAP_MS: String(SETTLE_CAP_MS),
    // busy.html keeps requests that never answer in flight, one from its start and one every 200 ms. After
    // the default 1.5 s a request stops counting; on a loaded CI machine the page's timers once ran that
    // late and the page looked settled at 846 ms. A minute keeps it busy however slow the machine is.
    OPENFORGE_SETTLE_REQUEST_STALE_MS: '60000',
  });
});

afterAll(async () => {
  await env?.stop();
});

/** Processes in the container: pid, parent, state, command name, arguments. */
async function processes(): Promise<{ pid: number; ppid: number; stat: string; comm: string; args: string }[]> {
  const res = await env.sandbox.exec(['ps', '-eo', 'pid=,ppid=,stat=,comm=,args=']);
  return res.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [pid, ppid, stat, comm, ...args] = l.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), stat: stat!, comm: comm!, args: args.join(' ') };
    });
}

// Generous limits: the machine is shared; speed is measured by scripts/bench/browser.mjs, not here.
describe('bad input: a structured error in the observation, and the episode goes on', { timeout: 240_000 }, () => {
  const cases: { name: string; schema: string; action: unknown; code: string; mentions: string }[] = [
    { name: 'an unknown canonical action', schema: 'canonical', action: { type: 'teleport', x: 1 }, code: 'unknown_action', mentions: 'teleport' },
    {
      name: 'an unknown Anthropic action',
      schema: 'anthropic',
      action: { action: 'left_klick', coordinate: [1, 1] },
      code: 'unknown_action',
      mentions: 'left_klick',
    },
    { name: 'an out-of-range click', schema: 'openai', action: { type: 'click', x: 5000, y: 20 }, code: 'out_of_range', mentions: '1280x800' },
    {
      name: 'an out-of-range Qwen3 grid point',
      schema: 'qwen3vl',
      action: { action: 'left_click', coordinate: [1200, 10] },
      code: 'out_of_range',
      mentions: 'outside',
    },
    { name: 'malformed pyautogui', schema: 'pyautogui', action: 'pyautogui.click(650, 425', code: 'bad_pyautogui', mentions: 'cannot parse' },
    { name: 'pyautogui that is not in the subset', schema: 'pyautogui', action: "os.system('rm -rf /')", code: 'bad_pyautogui', mentions: 'os.system' },
    { name: 'a missing ref', schema: 'element', action: { action: 'click', ref: 'e4242' }, code: 'missing_ref', mentions: 'e4242' },
    { name: 'an unknown key name', schema: 'anthropic', action: { action: 'key', text: 'ctrl+Hyper_Q' }, code: 'bad_key', mentions: 'Hyper_Q' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await env.post('/reset', { start_url: TARGETS });
      const obs = await env.post('/step', { schema: c.schema, action: c.action });
      expect(obs.last_action_error).toMatchObject({ code: c.code, message: expect.stringContaining(c.mentions) });
      expect(obs.screenshot.width).toBe(1280);
      const next = await env.post('/step', { action: { type: 'click', x: 650, y: 425 } });
      expect(next.last_action_error).toBeNull();
      expect(next.title).toBe('hit:B');
    });
  }

  it('stops a list at the failing action and reports it', async () => {
    await env.post('/reset', { start_url: TARGETS });
    const obs = await env.post('/step', { actions: [{ type: 'click', x: 90, y: 65 }, { type: 'nope' }, { type: 'click', x: 650, y: 425 }] });
    expect(obs.last_action_error?.code).toBe('unknown_action');
    expect(obs.title).toBe('hit:A');
  });
});

describe('faults', { timeout: 240_000 }, () => {
  it('caps a page that never settles at the settle deadline', async () => {
    const obs = await env.post('/reset', { start_url: 'http://127.0.0.1:8000/busy.html' });
    expect(obs.title).toBe('busy');
    const step = await env.post('/step', { action: { type: 'move', x: 10, y: 10 } });
    expect(step.last_action_error).toBeNull();
    expect(step.timings.settle_ms).toBeGreaterThanOrEqual(SETTLE_CAP_MS);
  });

  it('restarts a crashed browser, says so, and the episode goes on', async () => {
    await env.post('/reset', { start_url: TARGETS });
    const server = (await processes()).find((p) => p.args.includes('server/main.js'))!;
    const browser = (await processes()).find((p) => p.ppid === server.pid && p.comm.startsWith('chromium'));
    expect(browser).toBeDefined();
    await env.sandbox.exec(['kill', '-9', String(browser!.pid)]);
    const obs = await env.post('/step', { action: { type: 'click', x: 650, y: 425 } });
    expect(obs.last_action_error?.code).toBe('browser_restarted');
    expect(obs.url).toBe(TARGETS); // reopened where the agent was
    const health = await env.get<HealthResponse>('/health');
    expect(health).toEqual({ ok: true, browser: 'restarted', restarts: 1 });
    const next = await env.post('/step', { action: { type: 'click', x: 650, y: 425 } });
    expect(next.last_action_error).toBeNull();
    expect(next.title).toBe('hit:B');
  });

  it('leaves no zombie or leftover chromium processes after 100 resets', async () => {
    for (let i = 0; i < 100; i++) {
      const url = i % 2 ? TARGETS : 'about:blank';
      const obs = await env.post('/reset', { start_url: url });
      expect(obs.url).toBe(url);
      expect(obs.tabs).toHaveLength(1);
    }
    const procs = await processes();
    expect(procs.filter((p) => p.stat.startsWith('Z'))).toEqual([]);
    const server = procs.find((p) => p.args.includes('server/main.js'))!;
    // One browser (the main process is the env server's child); its helpers do not pile up per episode.
    expect(procs.filter((p) => p.ppid === server.pid && p.comm.startsWith('chromium'))).toHaveLength(1);
    const renderers = procs.filter((p) => p.args.includes('--type=renderer'));
    expect(renderers.length).toBeLessThanOrEqual(4);
  }, 1_800_000);
});
