import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { Store } from '../../src/store/store.js';
import { workspaceImage } from '../helpers/docker.js';
import { canRestartEngine, engineAnswers, startEngine, stopEngine } from '../helpers/engine.js';
import { makeSuite } from '../helpers/tasks.js';

// Runs alone, after the rest of the suite (vitest.engine.config.ts): it stops the engine every other test uses.
const cannot = canRestartEngine();
if (cannot) console.warn(`skipping the engine restart tests: ${cannot}`);

const SLOW_SOLVE = '#!/bin/bash\n# step: think\nsleep 3\n# step: finish\necho done > /workspace/done.txt\n';

function config(tasks: number, raw: Partial<Record<keyof RunConfig, unknown>> = {}) {
  const suite = makeSuite(Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, solve: SLOW_SOLVE })));
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-restart-'));
  return resolveRunConfig(
    { output, tasks: suite, harness: 'forge-agent', model: { upstream: 'sim:oracle' }, concurrency: 2, ...raw },
    path.join(output, 'run.yaml'),
  );
}

async function leftovers(runId: string) {
  const { backend } = await workspaceImage();
  const filters = { label: [`${LABEL_RUN}=${runId}`] };
  return {
    containers: (await backend.docker.listContainers({ all: true, filters })).length,
    networks: (await backend.docker.listNetworks({ filters })).length,
  };
}

beforeAll(async () => {
  if (!cannot) await workspaceImage();
});

afterAll(async () => {
  if (!cannot && !engineAnswers()) await startEngine(); // never leave the machine without its engine
});

describe.skipIf(cannot)('the Docker engine restarts in the middle of a run', () => {
  it('waits for the engine, retries what it stopped before the agent ran, and finishes the run on the same network', async () => {
    const loaded = config(8);
    const logs: string[] = [];
    let restart: Promise<void> | undefined;
    const summary = await executeRun(loaded, {
      onLog: (line) => logs.push(line),
      onRolloutDone: () => {
        // the first rollout is done and the next two are in their agent's `sleep 3`
        restart ??= (async () => {
          await new Promise((r) => setTimeout(r, 1000));
          await stopEngine();
          await new Promise((r) => setTimeout(r, 2000));
          await startEngine();
        })();
      },
    });
    await restart;
    const outcomes = summary.tasks.map((t) => ({ rewards: t.rewards, errors: t.errors }));
    // Every slot ended; the ones the restart caught mid-agent are infrastructure failures, not run again.
    expect(summary.tasks).toHaveLength(8);
    for (const o of outcomes) expect(o.rewards[0] === 1 || o.errors.infrastructure === 1, JSON.stringify(outcomes)).toBe(true);
    // Rollouts after the restart ran their agent through the proxy on the run's network, and solved their task.
    expect(outcomes.filter((o) => o.rewards[0] === 1).length, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(6);
    expect(summary.errors.infrastructure ?? 0).toBeLessThanOrEqual(2); // at most the two in their agent at the stop
    expect(logs.some((line) => line.startsWith('retrying '))).toBe(true);
    expect(await leftovers(summary.runId)).toEqual({ containers: 0, networks: 0 });
  }, 300_000);

  it('stops with an error naming the engine when it stays away, and the same command resumes the run', async () => {
    const loaded = config(6, { retries: { infrastructure: 2, backend_wait_sec: 3 } });
    let stopped: Promise<void> | undefined;
    const run = executeRun(loaded, {
      onRolloutDone: () => {
        stopped ??= stopEngine();
      },
    });
    await expect(run).rejects.toThrow(/the Docker engine has not answered for 3 s .*so the run stopped/);
    await stopped;
    await startEngine();

    const store = await Store.open(path.join(loaded.outputDir, STORE_FILE));
    const [first] = await store.listRuns();
    expect(first!.status).toBe('interrupted');
    const done = (await store.currentRollouts(first!.id)).filter((r) => r.status === 'finished');
    await store.close();
    expect(done.length).toBeGreaterThanOrEqual(1);

    const resumed = await executeRun(loaded);
    expect(resumed.runId).toBe(first!.id);
    // Slots that never started, or whose retry the stop cancelled, ran now; the stop caught at most two mid-agent.
    const outcomes = resumed.tasks.map((t) => ({ rewards: t.rewards, errors: t.errors }));
    for (const o of outcomes) expect(o.rewards[0] === 1 || o.errors.infrastructure === 1, JSON.stringify(outcomes)).toBe(true);
    expect(outcomes.filter((o) => o.rewards[0] === 1).length, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(4);
    expect(await leftovers(resumed.runId)).toEqual({ containers: 0, networks: 0 });
  }, 300_000);
});
