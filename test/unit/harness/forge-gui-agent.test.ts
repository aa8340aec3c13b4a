import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { computerTool, dropOldScreenshots, environmentOf, runGuiAgent, stepRequest, systemPrompt } from '../../../src/in-container/agents/forge-gui-agent.js';
import type { ChatRequest } from '../../../src/sim/chat-request.js';
import { createOraclePolicy } from '../../../src/sim/policies/oracle.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { INSTRUCTION, makeTask, removeTaskDirs } from '../sim/fixtures.js';
import { copyAgentBundle, runAgentBundle } from './agent-bundle.js';

afterAll(removeTaskDirs);

/**
 * A FAKE env server (the real one runs Chromium in the browser image and is exercised by
 * test/integration/browser-run.test.ts): it records each /step body and answers with an observation
 * whose screenshot data names the step, so the test can tell which screenshots reached the model.
 */
async function fakeEnvServer(): Promise<{ url: string; steps: unknown[]; app: FastifyInstance }> {
  const steps: unknown[] = [];
  const app = Fastify();
  const observation = (n: number, error: { code: string; message: string } | null = null) => ({
    screenshot: { data: Buffer.from(`screen-${n}`).toString('base64'), mime: 'image/png', width: 1280, height: 800 },
    viewport: { width: 1280, height: 800 },
    device_pixel_ratio: 1,
    scale: 1,
    url: `http://127.0.0.1:8000/page-${n}`,
    title: `Page ${n}`,
    tabs: [],
    last_action_error: error,
    timings: { action_ms: 0, settle_ms: 0, capture_ms: 0 },
  });
  app.get('/observation', async () => observation(0));
  app.post('/step', async (req) => {
    steps.push(req.body);
    const body = req.body as { action?: { action?: string } };
    return observation(steps.length, body.action?.action === 'scroll' ? { code: 'bad_action', message: 'nothing to scroll' } : null);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, steps, app };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function setup(actions: unknown[]) {
  const task = makeTask({ solve: '#!/bin/bash\ntrue\n' });
  writeFileSync(path.join(task.dir, 'solution', 'actions.json'), JSON.stringify(actions));
  const requests: ChatRequest[] = [];
  const oracle = createOraclePolicy();
  const sim: SimServer = await startSimServer({
    tasks: [task],
    policy: { name: 'oracle', needsTask: true, respond: (request, ctx) => (requests.push(structuredClone(request)), oracle.respond(request, ctx)) },
  });
  const env = await fakeEnvServer();
  closers.push(
    () => sim.close(),
    () => env.app.close(),
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'gui-agent-'));
  return { sim, env, requests, dir };
}

const ACTIONS = [
  { type: 'goto', url: 'http://127.0.0.1:8000/form' },
  { type: 'click', x: 100, y: 200 },
  { type: 'type', text: 'milk' },
  { type: 'scroll', dx: 0, dy: 200 },
  { type: 'key', keys: ['Enter'] },
  { type: 'done', answer: 'Added milk.' },
];

describe('forge-gui-agent against the sim oracle and a fake env server', () => {
  it('sends screenshots as images, posts each computer call to /step and stops at the final answer', async () => {
    const { sim, env, requests, dir } = await setup(ACTIONS);
    const result = await runGuiAgent({
      instruction: INSTRUCTION,
      baseUrl: sim.url,
      envUrl: env.url,
      keepScreenshots: 2,
      transcriptPath: path.join(dir, 'transcript.jsonl'),
      answerPath: path.join(dir, 'answer.txt'),
      log: () => undefined,
    });
    expect(result).toEqual({ exitCode: 0, turns: 6, finalText: 'Added milk.' });
    expect(readFileSync(path.join(dir, 'answer.txt'), 'utf8')).toBe('Added milk.');
    expect(env.steps).toEqual([
      { schema: 'canonical', action: { type: 'goto', url: 'http://127.0.0.1:8000/form' } },
      { schema: 'anthropic', action: { action: 'left_click', coordinate: [100, 200] } },
      { schema: 'canonical', action: { type: 'type', text: 'milk' } },
      { schema: 'anthropic', action: { action: 'scroll', scroll_direction: 'down', scroll_amount: 2 } },
      { schema: 'anthropic', action: { action: 'key', text: 'Return' } },
      { schema: 'canonical', action: { type: 'done', answer: 'Added milk.' } },
    ]);

    // Every request offers the computer tool. keep 2: up to 4 screenshots, then all but the newest 2 go at once
    // (before call 5), so the last call (6) holds 3.
    expect(requests.every((r) => r.tools?.some((t) => t.function?.name === 'computer'))).toBe(true);
    const last = requests.at(-1)!;
    const images = last.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url');
    const decoded = images.map((p) => Buffer.from((typeof p.image_url === 'string' ? p.image_url : p.image_url.url).split(',')[1]!, 'base64').toString());
    expect(decoded).toEqual(['screen-3', 'screen-4', 'screen-5']);
    const imageCounts = requests.map(
      (r) => r.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url').length,
    );
    expect(imageCounts).toEqual([1, 2, 3, 4, 2, 3]);
    expect(JSON.stringify(last.messages)).toContain('omitted to keep the context short');
    // The action error reached the model as the tool result.
    const toolResults = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults[3]).toBe('Error (bad_action): nothing to scroll');
    expect(toolResults[0]).toMatch(/^OK: navigate\. Page: Page 1 — http:\/\/127\.0\.0\.1:8000\/page-1$/);

    const events = readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(['start', ...Array(5).fill(['model_response', 'tool_result']).flat(), 'model_response', 'final']);
    expect(readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8')).not.toContain(Buffer.from('screen-0').toString('base64'));
  });

  it('gives a task up through the env server (OSWorld FAIL), so graders of infeasible tasks see it', async () => {
    const { sim, env, dir } = await setup([
      { type: 'click', x: 1, y: 2 },
      { type: 'fail', reason: 'the app cannot do this' },
    ]);
    const result = await runGuiAgent({
      instruction: INSTRUCTION,
      baseUrl: sim.url,
      envUrl: env.url,
      answerPath: path.join(dir, 'answer.txt'),
      log: () => undefined,
    });
    expect(result).toEqual({ exitCode: 0, turns: 2, finalText: 'I cannot complete the task: the app cannot do this' });
    expect(env.steps).toEqual([
      { schema: 'anthropic', action: { action: 'left_click', coordinate: [1, 2] } },
      { schema: 'canonical', action: { type: 'fail', reason: 'the app cannot do this' } },
    ]);
  });

  it('stops at max turns with exit code 2, and with exit code 1 when the env server is unreachable', async () => {
    const { sim, env } = await setup(ACTIONS);
    const capped = await runGuiAgent({ instruction: INSTRUCTION, baseUrl: sim.url, envUrl: env.url, maxTurns: 2, log: () => undefined });
    expect(capped).toMatchObject({ exitCode: 2, turns: 2, finalText: null });
    expect(env.steps).toHaveLength(2);
    const down = await runGuiAgent({ instruction: INSTRUCTION, baseUrl: sim.url, envUrl: 'http://127.0.0.1:1', log: () => undefined });
    expect(down.exitCode).toBe(1);
    expect(down.error).toMatch(/env server GET \/observation/);
  });
});

describe('the bundled GUI agent (dist/agents/forge-gui-agent.mjs), alone in a folder, as a child process', () => {
  const spawnAgent = (args: string[], env: Record<string, string>) => runAgentBundle(copyAgentBundle('forge-gui-agent'), args, env);

  it('runs a task end to end: the answer on stdout and in the answer file, exit 0', async () => {
    const { sim, env, dir } = await setup(ACTIONS);
    writeFileSync(path.join(dir, 'instruction.md'), INSTRUCTION);
    const args = ['--instruction-file', path.join(dir, 'instruction.md'), '--env-url', env.url, '--max-turns', '10'];
    const files = ['--transcript', path.join(dir, 'transcript.jsonl'), '--answer-file', path.join(dir, 'answer.txt')];
    const { code, stdout, stderr } = await spawnAgent([...args, ...files], { OPENAI_BASE_URL: sim.url });
    expect(stderr).toContain('turn 6/10: final answer');
    expect(code).toBe(0);
    expect(stdout).toBe('Added milk.\n');
    expect(readFileSync(path.join(dir, 'answer.txt'), 'utf8')).toBe('Added milk.');
    expect(env.steps).toHaveLength(6);
  });

  it('prints its usage for --help, and exits 1 naming a bad option', async () => {
    const help = await spawnAgent(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: node forge-gui-agent.mjs --instruction-file FILE/);
    const unknown = await spawnAgent(['--instruction-file', 'x.md', '--keep-screenshot', '2'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--keep-screenshot');
    expect(unknown.stderr).toContain('usage: node forge-gui-agent.mjs');
    const zero = await spawnAgent(['--instruction-file', 'x.md', '--keep-screenshots', '0'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('--keep-screenshots must be a positive whole number, got "0"');
  });
});

describe('forge-gui-agent pieces', () => {
  it('names the environment it drives: a browser, or a desktop (whose tool has no page or tab actions)', () => {
    const shot = { data: '', mime: 'image/png', width: 1280, height: 800 };
    const desktop = environmentOf({ screenshot: shot, viewport: shot, url: '', title: 'notes', tabs: [], windows: [] } as never);
    expect(desktop).toBe('desktop');
    expect(environmentOf({ screenshot: shot, viewport: shot, url: 'http://x', title: '', tabs: [] } as never)).toBe('browser');
    expect(systemPrompt('desktop', 1280, 800)).toMatch(
      /^You are a GUI agent operating a Linux desktop .*\nEach screenshot shows the whole screen \(1280x800 pixels\)/,
    );
    expect(systemPrompt('browser', 1024, 768)).toMatch(/operating a web browser[^]*the whole browser viewport \(1024x768 pixels\)/);
    const tool = computerTool('desktop').function;
    expect(tool.description).toMatch(/desktop screen/);
    expect(tool.parameters.properties.action.enum).toContain('left_click');
    expect(tool.parameters.properties.action.enum).toContain('done');
    expect(tool.parameters.properties.action.enum).toContain('fail');
    expect(tool.parameters.properties.action.enum).not.toContain('navigate');
    expect(tool.parameters.properties).not.toHaveProperty('url');
    expect(computerTool('browser').function.parameters.properties.action.enum).toContain('navigate');
  });

  it('sends browser actions as canonical actions and computer actions as Anthropic ones', () => {
    expect(stepRequest({ action: 'navigate', url: 'http://a/' })).toEqual({ schema: 'canonical', action: { type: 'goto', url: 'http://a/' } });
    expect(stepRequest({ action: 'go_back' })).toEqual({ schema: 'canonical', action: { type: 'go_back' } });
    expect(stepRequest({ action: 'left_click', coordinate: [1, 2] })).toEqual({ schema: 'anthropic', action: { action: 'left_click', coordinate: [1, 2] } });
    expect(() => stepRequest({ action: 'navigate' })).toThrow(/navigate needs a "url"/);
    expect(stepRequest({ action: 'type', text: 'hello world' })).toEqual({ schema: 'canonical', action: { type: 'type', text: 'hello world' } });
  });

  it('keeps the newest screenshots, dropping the older ones in one batch past twice the limit', () => {
    const img = (n: number) => ({ type: 'image_url' as const, image_url: { url: `data:image/png;base64,${n}` } });
    const messages = [1, 2].map((n) => ({ role: 'user' as const, content: [{ type: 'text' as const, text: `t${n}` }, img(n)] }));
    dropOldScreenshots(messages, 1);
    expect(messages.flatMap((m) => m.content).filter((p) => p.type === 'image_url')).toHaveLength(2);
    messages.push({ role: 'user' as const, content: [{ type: 'text' as const, text: 't3' }, img(3)] });
    dropOldScreenshots(messages, 1);
    expect(messages.map((m) => m.content.map((p) => (p.type === 'text' ? p.text : p.image_url.url)))).toEqual([
      ['t1', '[an earlier screenshot, omitted to keep the context short]'],
      ['t2', '[an earlier screenshot, omitted to keep the context short]'],
      ['t3', 'data:image/png;base64,3'],
    ]);
  });
});
