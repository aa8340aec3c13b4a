import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { Store } from '../../src/store/store.js';
import { exportRun } from '../../src/trajectory/export.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

/** Runs SQL on a database file with the sqlite3 driver itself. */
function sql(file: string, statement: string): Promise<void> {
  const db = new sqlite3.Database(file);
  return new Promise((resolve, reject) => db.exec(statement, (err) => db.close(() => (err ? reject(err) : resolve()))));
}

beforeAll(async () => {
  await workspaceImage();
});

describe('a rollout whose record could not be written', () => {
  it('fails as infrastructure, with no reward, and never becomes training data', async () => {
    const output = mkdtempSync(path.join(os.tmpdir(), 'of-record-loss-'));
    const file = path.join(output, STORE_FILE);
    // the store as a run makes it, then a trigger that refuses the second model call of any rollout, as a full disk would
    await (await Store.open(file)).close();
    await sql(file, "CREATE TRIGGER refuse_second_call BEFORE INSERT ON calls WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'disk full (test trigger)'); END;");
    const loaded = resolveRunConfig(
      { tasks: makeSuite([{ id: 'recorded' }]), harness: 'forge-agent', model: { upstream: 'sim:oracle' }, network: 'proxy-only', output },
      path.join(output, 'run.yaml'),
    );
    const summary = await executeRun(loaded);
    expect(summary.tasks[0]).toMatchObject({ rewards: [null], errors: { infrastructure: 1 } });
    const store = await Store.open(file);
    try {
      const [rollout] = await store.currentRollouts(summary.runId);
      expect(rollout).toMatchObject({ status: 'error', reward: null, errorType: 'infrastructure' });
      expect(rollout!.errorMessage).toMatch(/model call of this rollout could not be recorded \(call 2: .*disk full \(test trigger\)/);
    } finally {
      await store.close();
    }
    const exported = await exportRun(file, { format: 'verl', out: path.join(output, 'train.jsonl'), workers: 0 });
    expect(exported).toMatchObject({ rows: 0, rolloutsExported: 0 });
  }, 180_000);
});
