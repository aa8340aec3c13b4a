import { appendFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun } from '../../src/rollout/run.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

beforeAll(async () => {
  await workspaceImage();
});

/** Starts a run of the config and interrupts it once planned, leaving it unfinished; says whether it resumed one. */
async function interruptedRun(loaded: ReturnType<typeof resolveRunConfig>): Promise<{ runId: string; resumed: boolean }> {
  const stop = new AbortController();
  let plan: { runId: string; resumed: boolean } | undefined;
  await executeRun(loaded, { signal: stop.signal, onPlan: (p) => ((plan = p), stop.abort()) }).catch(() => undefined);
  return plan!;
}

describe('resuming an unfinished run', () => {
  it('happens for the same config over the same tasks, and not once a task changed under the same name', async () => {
    const suite = makeSuite([{ id: 'kept-name' }]);
    const output = mkdtempSync(path.join(os.tmpdir(), 'of-resume-hash-'));
    const loaded = () => resolveRunConfig({ tasks: suite, harness: 'oracle', network: 'none', output }, path.join(output, 'run.yaml'));
    const first = await interruptedRun(loaded());
    expect(first.resumed).toBe(false);
    const again = await interruptedRun(loaded());
    expect(again).toMatchObject({ runId: first.runId, resumed: true });
    appendFileSync(path.join(suite, 'kept-name', 'tests', 'test.sh'), '# the grader changed\n');
    const changed = await interruptedRun(loaded());
    expect(changed.resumed).toBe(false);
    expect(changed.runId).not.toBe(first.runId);
  }, 120_000);
});
