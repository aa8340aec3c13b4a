import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { loadTasks } from '../../src/config/task.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { parseSimSpec } from '../../src/sim/policies/sim-spec.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { Store } from '../../src/store/store.js';
import { exportRun } from '../../src/trajectory/export.js';
import { workspaceImage } from '../helpers/docker.js';

/**
 * An outage of the policy's inference server is not a reward: a run against a closed port stops before any
 * container starts, naming the upstream; an upstream that goes away mid-run (a real HTTP server in front of the
 * sim, closed and reopened on its port) makes `upstream_error` rollouts with no reward, run again once it serves.
 */
const CLI = path.resolve('bin/openforge.js');
const CLAW_BASIC = path.resolve('envs/claw-basic');
const TASK_IDS = ['create-config-file', 'sales-by-region'];

/** A closed port: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * The sim behind a front server that forwards every request to it, and that goes down (its port closed,
 * its connections reset) at the n-th chat completion for `downMs`, then listens on the same port again.
 */
class FlakyUpstream {
  private server: http.Server | undefined;
  private chats = 0;
  port = 0;
  outages: { at: number; back: number | null }[] = [];

  constructor(
    private readonly sim: SimServer,
    private readonly downAtChat: number,
    private readonly downMs: number,
  ) {}

  get url() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async listen(): Promise<void> {
    const server = http.createServer((req, res) => this.forward(req, res));
    await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.url?.endsWith('/chat/completions') && ++this.chats === this.downAtChat) {
      req.socket.destroy(); // reset mid-call
      void this.down();
      return;
    }
    const target = new URL(req.url ?? '/', this.sim.url.replace(/\/v1$/, ''));
    const out = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  }

  private async down(): Promise<void> {
    const server = this.server!;
    this.server = undefined;
    const outage = { at: Date.now(), back: null as number | null };
    this.outages.push(outage);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await new Promise((r) => setTimeout(r, this.downMs));
    await this.listen();
    outage.back = Date.now();
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

let sim: SimServer;

beforeAll(async () => {
  await workspaceImage();
  sim = await startSimServer({ policy: parseSimSpec('sim:oracle'), tasks: loadTasks(CLAW_BASIC), modelName: 'policy' });
}, 600_000);

afterAll(async () => {
  await sim?.close();
});

/** The CLI in a child process, without blocking this one (which serves the sim). */
function runCli(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stderr })));
}

function runYaml(upstream: string, name = 'policy'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-outage-'));
  const file = path.join(dir, 'run.yaml');
  writeFileSync(file, `tasks: ${path.join(CLAW_BASIC, TASK_IDS[0]!)}\nmodel:\n  upstream: ${upstream}\n  name: ${name}\noutput: ${path.join(dir, 'runs')}\n`);
  return file;
}

describe('an upstream that cannot serve, before the run', () => {
  it('a closed port stops `openforge run` in seconds, naming the upstream, before any container or store exists', async () => {
    const port = await closedPort();
    const file = runYaml(`http://127.0.0.1:${port}/v1`);
    const started = Date.now();
    const run = await runCli(['run', file]);
    const elapsedMs = Date.now() - started;
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(
      `the upstream http://127.0.0.1:${port}/v1 (model.upstream) cannot serve the policy: GET http://127.0.0.1:${port}/v1/models failed: ECONNREFUSED`,
    );
    expect(run.stderr).toMatch(/hint: start the inference server/);
    expect(elapsedMs).toBeLessThan(5_000);
    expect(existsSync(path.join(path.dirname(file), 'runs', STORE_FILE))).toBe(false);
  }, 70_000);

  it('a server that does not serve the model name is named with what it serves', async () => {
    const file = runYaml(sim.url, 'qwen-7b');
    const run = await runCli(['run', file]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`the upstream ${sim.url} (model.upstream) cannot serve the policy: it serves "policy", not "qwen-7b"`);
  }, 70_000);
});

describe('an upstream killed mid-run', () => {
  it('ends the rollouts that met it as upstream_error with no reward, runs them again once it serves, and trains on none of them', async () => {
    // Down at the third chat completion, for longer than forge-agent retries a call (1+2+4+8 s): the harness gives up.
    const upstream = new FlakyUpstream(sim, 3, 20_000);
    await upstream.listen();
    try {
      const output = mkdtempSync(path.join(os.tmpdir(), 'of-outage-run-'));
      const loaded = resolveRunConfig(
        {
          tasks: TASK_IDS.map((id) => path.join(CLAW_BASIC, id)),
          harness: 'forge-agent',
          model: { upstream: upstream.url, name: 'policy' },
          rollouts_per_task: 1,
          concurrency: 2,
          retries: { infrastructure: 2, upstream_error: 2, upstream_wait_sec: 120 },
          output,
        },
        path.join(output, 'run.yaml'),
      );
      const logs: string[] = [];
      const summary = await executeRun(loaded, { onLog: (line) => logs.push(line) });
      expect(upstream.outages).toHaveLength(1);
      expect(upstream.outages[0]!.back).not.toBeNull();

      const store = await Store.open(path.join(output, STORE_FILE));
      try {
        const current = await store.currentRollouts(summary.runId);
        const every = await allAttempts(store, summary.runId);
        const failed = every.filter((r) => r.errorType === 'upstream_error');
        expect(failed.length).toBeGreaterThanOrEqual(1);
        for (const r of failed) {
          expect(r.reward).toBeNull();
          expect(r.status).toBe('error');
          expect(r.errorMessage).toMatch(/policy calls? failed at the upstream \(call \d+: upstream /);
          // its retry came after the upstream was back
          const retry = every.find((x) => x.taskId === r.taskId && x.sampleIndex === r.sampleIndex && x.attempt === r.attempt + 1);
          expect(retry, `a retry of ${r.id}`).toBeDefined();
          expect(retry!.startedAt!).toBeGreaterThanOrEqual(upstream.outages[0]!.back!);
        }
        expect(every.some((r) => r.errorType === 'harness_crash')).toBe(false);
        // every slot ended graded, on an attempt that met no outage
        expect(current).toHaveLength(2);
        for (const r of current) {
          expect({ id: r.id, reward: r.reward, error: r.errorType }).toEqual({ id: r.id, reward: 1, error: null });
        }
        expect(summary.tasks.map((t) => t.rewards)).toEqual([[1], [1]]);
        expect(summary.errors).toEqual({});
        expect(logs.some((l) => /retrying .* after an upstream error/.test(l))).toBe(true);

        // the export trains on the graded attempts only, even with --unrewarded
        const out = path.join(output, 'train.jsonl');
        const report = await exportRun(output, { format: 'verl', out, unrewarded: true });
        const ids = new Set(
          readFileSync(out, 'utf8')
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as { rollout_id: string }).rollout_id),
        );
        for (const r of failed) expect(ids.has(r.id)).toBe(false);
        expect(report.rolloutsExported).toBe(2);
      } finally {
        await store.close();
      }
      const { backend } = await workspaceImage();
      expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${summary.runId}`] } })).toHaveLength(0);
    } finally {
      await upstream.close();
    }
  }, 400_000);
});

async function allAttempts(store: Store, runId: string) {
  const current = await store.currentRollouts(runId);
  const out = [];
  for (const c of current) {
    for (let a = 1; a <= c.attempt; a++) {
      const r = await store.getRollout(`${runId}.${c.taskId}.${c.sampleIndex}.${a}`);
      if (r) out.push(r);
    }
  }
  return out;
}
