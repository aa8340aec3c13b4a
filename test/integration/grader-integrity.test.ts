import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../../src/config/run.js';
import { executeRun } from '../../src/rollout/run.js';
import { isolationRuntimes, workspaceImage } from '../helpers/docker.js';
import { forgingSuite, groundTruth } from '../helpers/forging-tasks.js';

function config(raw: Partial<Record<keyof RunConfig, unknown>> & { tasks: string }) {
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-integrity-'));
  return resolveRunConfig({ output, harness: 'oracle', network: 'none', concurrency: 2, ...raw }, path.join(output, 'run.yaml'));
}

const RUNTIMES = await isolationRuntimes();

beforeAll(async () => {
  await workspaceImage();
});

/** Tasks whose reference solution forges the reward (test/helpers/forging-tasks.ts), run as the agent by the oracle harness. */
describe.each(RUNTIMES.map((runtime) => [runtime ?? 'the default runtime', runtime] as const))(
  'a grader the agent cannot touch, under %s',
  (_name, runtime) => {
    it('ends every forging rollout with the grader own reward, and leaves none of the agent processes running while it grades', async () => {
      const loaded = config({ tasks: forgingSuite(), ...(runtime ? { sandbox: { runtime } } : {}) });
      const summary = await executeRun(loaded);
      const rewards = Object.fromEntries(summary.tasks.map((t) => [t.taskId, { rewards: t.rewards, errors: t.errors }]));
      expect(rewards).toEqual(groundTruth());
      for (const id of ['background-reward-writer', 'outlives-the-agent']) {
        const processes = readFileSync(path.join(loaded.outputDir, summary.runId, id, '0-a1', 'verifier', 'processes.txt'), 'utf8');
        expect(processes).not.toMatch(/while/);
      }
    }, 300_000);
  },
);
