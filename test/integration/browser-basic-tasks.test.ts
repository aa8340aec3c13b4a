import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../src/in-container/browser-env/actions.js';
import { loadTasks, type Task } from '../../src/config/task.js';
import { readTree } from '../../src/sandbox/docker/archive.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';
import type { RunNetwork } from '../../src/sandbox/types.js';

/**
 * Every browser-basic task, in its own image (built the way rollouts build task images), with the env
 * server of the browser image: the reference actions (solution/actions.json) applied through POST /step
 * must score 1, and the untouched site must score 0 — both graded by POST /evaluate (tests/test.sh).
 */
const SUITE = path.resolve(import.meta.dirname, '../../envs/browser-basic');
const tasks = loadTasks(SUITE);
const runId = `test-browser-basic-${process.pid}`;
let backend: DockerBackend;
let builder: ImageBuilder;
let network: RunNetwork;

interface EvaluateResponse {
  reward: number;
  details?: unknown;
  stdout: string;
  stderr: string;
}

beforeAll(async () => {
  backend = new DockerBackend();
  await backend.check();
  builder = new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA });
  network = await backend.prepareNetwork(runId, 'proxy-only');
});

afterAll(async () => {
  await backend?.removeRun(runId);
  if (network) await backend.releaseNetwork(network).catch(() => undefined);
});

function browserConfig(task: Task): { start_url: string; viewport?: { width: number; height: number } } {
  const env = task.config.environment as { kind?: string; browser?: { start_url: string; viewport?: { width: number; height: number } } };
  if (env.kind !== 'browser' || !env.browser?.start_url) throw new Error(`${task.id}: task.toml lacks [environment] kind = "browser" with a start_url`);
  return env.browser;
}

describe('the browser-basic suite', () => {
  it('has at least ten browser tasks, each linking to the shared site kit', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(10);
    for (const t of tasks) {
      expect(browserConfig(t).start_url).toMatch(/^http:\/\/127\.0\.0\.1:8000\//);
      expect(realpathSync(path.join(t.environmentDir!, 'site/kit'))).toBe(realpathSync(path.join(SUITE, '_site-kit/site')));
      expect(realpathSync(path.join(t.testsDir, 'test.sh'))).toBe(realpathSync(path.join(SUITE, '_site-kit/tests/test.sh')));
      expect(realpathSync(path.join(t.solutionDir!, 'solve.sh'))).toBe(realpathSync(path.join(SUITE, '_site-kit/solution/solve.sh')));
    }
  });
});

describe.each(tasks.map((t) => [t.id, t] as const))('%s through the env server', (id, task) => {
  it('scores 1 with the reference actions and 0 with none', async () => {
    const image = await builder.ensureTaskImage(task);
    const sandbox = await backend.create({
      runId,
      rolloutId: `${runId}-${id}`,
      image,
      env: { OPENFORGE_START_DEADLINE: '120' },
      resources: { cpus: 2, memoryMb: 2048, pids: 2048 },
      network,
      lifetimeSec: 1800,
    });
    try {
      await sandbox.writeFiles(
        readTree(task.testsDir, '', { symlinksWithin: SUITE }).map((f) => ({ path: `/tests/${f.name}`, content: f.content, mode: f.mode })),
      );
      const started = await sandbox.exec(['/opt/openforge/bin/start-browser-env'], { timeoutSec: 180 });
      expect(started.exitCode, `${started.stdout}\n${started.stderr}`).toBe(0);
      const url = `http://${await sandbox.address?.()}:7000`;
      const post = async <T>(route: string, body: unknown): Promise<T> => {
        const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const text = await res.text();
        if (!res.ok) throw new Error(`${route} → ${res.status}: ${text}`);
        return JSON.parse(text) as T;
      };
      const { start_url, viewport } = browserConfig(task);

      await post('/reset', { start_url, viewport });
      const nothing = await post<EvaluateResponse>('/evaluate', {});
      expect(nothing.reward, nothing.stdout).toBe(0);

      const actions = JSON.parse(readFileSync(path.join(task.solutionDir!, 'actions.json'), 'utf8')) as unknown[];
      // One action per step, as solution/solve.sh and an agent send them.
      for (const action of actions) {
        const obs = await post<Observation>('/step', { action });
        expect(obs.last_action_error, JSON.stringify(action)).toBeNull();
      }
      const solved = await post<EvaluateResponse>('/evaluate', {});
      expect(solved.reward, `${solved.stdout}\n${solved.stderr}`).toBe(1);
    } finally {
      await sandbox.remove().catch(() => undefined);
    }
  }, 600_000);
});
