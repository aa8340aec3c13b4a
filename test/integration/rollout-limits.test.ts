import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { Store } from '../../src/store/store.js';
import { UserError } from '../../src/util/errors.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

function config(raw: Partial<Record<keyof RunConfig, unknown>> & { tasks: string }) {
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-limits-'));
  return resolveRunConfig({ output, harness: 'oracle', network: 'none', ...raw }, path.join(output, 'run.yaml'));
}

/** Bytes under a folder, following nothing. */
function sizeOf(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(path.join(e.parentPath, e.name)).size, 0);
}

beforeAll(async () => {
  await workspaceImage();
});

describe('what a rollout may take of the host', () => {
  it('stops copying a 2 GB /logs at the collect limit, names the limit, and still grades the rollout', async () => {
    const solve = '#!/bin/bash\n# step: fill the logs\ntruncate -s 2G /logs/agent/huge.bin\necho done > /workspace/done.txt\n';
    const loaded = config({ tasks: makeSuite([{ id: 'huge-logs', solve }]), collect_limits: { max_mb: 16 } });
    const summary = await executeRun(loaded);
    expect(summary.tasks[0]).toMatchObject({ rewards: [1], errors: {} });
    const rolloutDir = path.join(loaded.outputDir, summary.runId, 'huge-logs', '0-a1');
    expect(sizeOf(path.join(rolloutDir, 'agent'))).toBeLessThanOrEqual(17 * 2 ** 20);
    const store = await Store.open(path.join(loaded.outputDir, STORE_FILE));
    try {
      const [rollout] = await store.currentRollouts(summary.runId);
      const events = await store.listEvents(rollout!.id);
      expect(events.map((e) => e.message)).toContainEqual(expect.stringMatching(/copying \/logs\/agent out stopped at 16 MiB \(collect_limits in run\.yaml\)/));
    } finally {
      await store.close();
    }
  }, 180_000);

  it('holds a task to its storage_mb, or refuses the run before it starts where the engine cannot', async () => {
    const { backend } = await workspaceImage();
    const problem = await backend.storageLimitProblem();
    const toml = '[task]\nname = "bounded-disk"\n[environment]\nstorage_mb = 64\n[agent]\ntimeout_sec = 60\n';
    const solve = '#!/bin/bash\n# step: fill the disk\nhead -c 200M /dev/zero > /workspace/big.bin || true\necho done > /workspace/done.txt\n';
    const test =
      '#!/bin/bash\nsize=$(stat -c %s /workspace/big.bin 2>/dev/null || echo 0)\n[ "$size" -lt 100000000 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n';
    const loaded = config({ tasks: makeSuite([{ id: 'bounded-disk', toml, solve, test }]) });
    if (problem) {
      const refused = await executeRun(loaded).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(UserError);
      expect((refused as Error).message).toMatch(
        /task bounded-disk sets \[environment\] storage_mb, which cannot be enforced here: the Docker engine's storage driver/,
      );
      expect(readdirSync(loaded.outputDir)).toEqual([]); // nothing started
    } else {
      const summary = await executeRun(loaded);
      expect(summary.tasks[0]!.rewards).toEqual([1]); // the 200 MB write stopped at the limit
    }
  }, 180_000);
});
