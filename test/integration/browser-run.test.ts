import net from 'node:net';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { Store } from '../../src/store/store.js';
import { buildTaskImages } from '../helpers/task-images.js';

/**
 * Browser tasks end to end: the real browser image (Chromium on Xvfb, noVNC, the env server), the
 * forge-gui-agent harness inside it, the recording proxy and the sim oracle replaying each task's
 * solution/actions.json as computer-tool calls. The CLI is driven as a user would (`npm run build` first).
 */
const CLI = path.resolve('bin/openforge.js');
const FIXTURES = path.resolve('test/fixtures/browser-tasks');

beforeAll(async () => {
  await buildTaskImages(FIXTURES);
}, 1_800_000);

interface LiveViewCheck {
  url: string;
  status: number | string;
  body: string;
  securityTypes: number[] | string;
}

/** Runs `openforge run <yaml>`; fetches each live-view URL the moment it is printed (the container lives only as long as its rollout). */
function runCli(file: string): Promise<{ code: number | null; stdout: string; stderr: string; liveViews: Promise<LiveViewCheck>[] }> {
  const child = spawn(process.execPath, [CLI, 'run', file, '--json'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
  let stdout = '';
  let stderr = '';
  let pending = '';
  const liveViews: Promise<LiveViewCheck>[] = [];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const url = /^live view \S+: (http:\/\/\S+)$/.exec(line)?.[1];
      if (!url) continue;
      liveViews.push(
        Promise.all([
          fetch(url).then(
            async (res) => ({ url, status: res.status, body: await res.text() }),
            (err: Error) => ({ url, status: `fetch failed: ${err.message}`, body: '' }),
          ),
          vncSecurityTypes(new URL(url).hostname),
        ]).then(([page, securityTypes]) => ({ ...page, securityTypes })),
      );
    }
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr, liveViews })));
}

/**
 * The security types the VNC server behind a live view offers (RFB 3.8 handshake): [2] is VNC's password
 * authentication; [1] would let anyone who reaches the port watch.
 */
function vncSecurityTypes(host: string): Promise<number[] | string> {
  return new Promise((resolve) => {
    const socket = net.connect(5900, host);
    let got = Buffer.alloc(0);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk) => {
      got = Buffer.concat([got, chunk]);
      if (got.length === 12) socket.write('RFB 003.008\n');
      else if (got.length > 12 && got.length >= 13 + got[12]!) {
        resolve([...got.subarray(13, 13 + got[12]!)]);
        socket.destroy();
      }
    });
    socket.on('error', (err) => resolve(`vnc: ${err.message}`));
  });
}

function imageUrls(request: unknown): string[] {
  const messages = (request as { messages?: { content?: unknown }[] }).messages ?? [];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content
          .filter((p: { type?: string }) => p.type === 'image_url')
          .map((p: { image_url: string | { url: string } }) => (typeof p.image_url === 'string' ? p.image_url : p.image_url.url))
      : [],
  );
}

/** Set by the first test: a recorded forge-gui-agent rollout of press-button, for the replay test. */
let recorded: { outputDir: string; rolloutId: string; completions: (number[] | null)[] } | undefined;

describe('openforge run on browser tasks', () => {
  it('solves them with forge-gui-agent + sim:oracle, records screenshots and computer calls, and prints a live view that answers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-browser-run-'));
    const file = path.join(dir, 'run.yaml');
    // One Chromium at a time: on a loaded shared machine two cold starts at once can miss the env server's
    // 30 s browser-launch deadline (envs/browser-basic/run.yaml runs 2 at a time).
    writeFileSync(
      file,
      `tasks: ${FIXTURES}\nharness: forge-gui-agent\nmodel:\n  upstream: sim:oracle\nnetwork: proxy-only\nconcurrency: 1\nrollouts_per_task: 1\noutput: out\n`,
    );
    const res = await runCli(file);
    expect(res.code, res.stderr).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary.simulated).toBe(true);
    expect(summary.tasks.map((t: { taskId: string; rewards: number[]; errors: object }) => [t.taskId, t.rewards, t.errors])).toEqual([
      ['press-button', [1], {}],
      ['type-name', [1], {}],
    ]);

    // One live view per rollout, each served by noVNC while its rollout ran.
    const views = await Promise.all(res.liveViews);
    expect(views).toHaveLength(2);
    for (const v of views) {
      expect(v.url).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:6080\/vnc\.html\?autoconnect=1&view_only=1&password=[^&]+$/);
      expect(v.securityTypes, "the live view asks for the rollout's VNC password").toEqual([2]);
      expect(v.status, v.url).toBe(200);
      expect(v.body).toMatch(/noVNC/);
    }

    const store = await Store.open(path.join(dir, 'out', STORE_FILE));
    try {
      const rollouts = await store.currentRollouts(summary.runId);
      expect(rollouts).toHaveLength(2);
      for (const r of rollouts) {
        const calls = await store.listCalls(r.id);
        // press-button: 1 click + the answer; type-name: click, type, key + the answer.
        expect(calls.length).toBe(r.taskId === 'press-button' ? 2 : 4);
        for (const c of calls) {
          expect(c.status).toBe(200);
          expect(c.missingTokenIds).toBe(false);
          const images = imageUrls(c.request);
          expect(images.length).toBeGreaterThanOrEqual(1);
          expect(images.every((u) => u.startsWith('data:image/png;base64,'))).toBe(true);
          expect(Buffer.from(images.at(-1)!.split(',')[1]!, 'base64').subarray(1, 4).toString()).toBe('PNG'); // a real screenshot
          const tools = (c.request as { tools?: { function?: { name: string } }[] }).tools ?? [];
          expect(tools.map((t) => t.function?.name)).toEqual(['computer']);
        }
        const toolCalls = calls.flatMap(
          (c) =>
            (c.response as { choices: { message: { tool_calls?: { function: { name: string; arguments: string } }[] } }[] }).choices[0]!.message.tool_calls ??
            [],
        );
        expect(toolCalls.every((t) => t.function.name === 'computer')).toBe(true);
        const first = JSON.parse(toolCalls[0]!.function.arguments);
        expect(first).toEqual(
          r.taskId === 'press-button' ? { action: 'left_click', coordinate: [200, 140] } : { action: 'left_click', coordinate: [250, 320] },
        );
        const artifacts = path.join(dir, 'out', summary.runId, r.taskId, '0-a1');
        expect(existsSync(path.join(artifacts, 'agent', 'transcript.jsonl'))).toBe(true);
        expect(readFileSync(path.join(artifacts, 'agent', 'answer.txt'), 'utf8')).toMatch(/pressed the button|Submitted the name Ada/);
      }
      const press = rollouts.find((r) => r.taskId === 'press-button')!;
      recorded = { outputDir: path.join(dir, 'out'), rolloutId: press.id, completions: (await store.listCalls(press.id)).map((c) => c.completionTokenIds) };
      const events = await store.listEvents(rollouts[0]!.id);
      expect(events.find((e) => e.kind === 'live_view')?.message).toMatch(/:6080\/vnc\.html/);
    } finally {
      await store.close();
    }
    const backend = new DockerBackend();
    expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${summary.runId}`] } })).toHaveLength(0);
  }, 900_000);

  it('replays a recorded browser rollout with sim:replay: same answers, same reward', async () => {
    expect(recorded, 'the first test records the rollout to replay').toBeDefined();
    const { outputDir, rolloutId, completions } = recorded!;
    const loaded = resolveRunConfig(
      { tasks: path.join(FIXTURES, 'press-button'), harness: 'forge-gui-agent', model: { upstream: `sim:replay:${rolloutId}` }, output: outputDir },
      path.join(outputDir, 'replay.yaml'),
    );
    const summary = await executeRun(loaded);
    expect(summary.tasks.map((t) => [t.taskId, t.rewards, t.errors])).toEqual([['press-button', [1], {}]]);
    const store = await Store.open(path.join(outputDir, STORE_FILE));
    try {
      const [replayed] = await store.currentRollouts(summary.runId);
      expect((await store.listCalls(replayed!.id)).map((c) => c.completionTokenIds)).toEqual(completions);
    } finally {
      await store.close();
    }
  }, 600_000);

  it('scores 0 with the nop harness (the graders read the site, not the agent)', async () => {
    const output = mkdtempSync(path.join(os.tmpdir(), 'of-browser-nop-'));
    const loaded = resolveRunConfig({ tasks: FIXTURES, harness: 'nop', network: 'none', concurrency: 1, output }, path.join(output, 'run.yaml'));
    const urls: string[] = [];
    const summary = await executeRun(loaded, { onLiveView: (v) => urls.push(v.url) });
    expect(summary.tasks.map((t) => [t.taskId, t.rewards, t.errors])).toEqual([
      ['press-button', [0], {}],
      ['type-name', [0], {}],
    ]);
    expect(urls).toEqual([]); // network none: no address to watch from
  }, 600_000);
});
