import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, withAgentTimeout, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const TASKS = ['create-config-file', 'sales-by-region'];
let rollouts: HarnessRolloutRecord[];

beforeAll(async () => {
  await harnessLayer('opencode');
  // opencode's start takes 10–60 s here (more when the machine is busy): more than claw-basic's 120 s leaves
  // for two of them side by side.
  ({ rollouts } = await runHarness('opencode', withAgentTimeout(TASKS, 600)));
}, 1_200_000);

/** The parts (text, tool calls, steps) opencode stored for its session, read from a copy of its SQLite file. */
async function storedParts(r: HarnessRolloutRecord): Promise<{ type: string; tool?: string; state?: { status?: string } }[]> {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'of-opencode-db-'));
  cpSync(path.join(r.artifacts, 'agent', 'transcript', 'opencode'), copy, { recursive: true });
  const db = new sqlite3.Database(path.join(copy, 'opencode.db'));
  try {
    const rows = await new Promise<{ data: string }[]>((resolve, reject) =>
      db.all('SELECT data FROM part', (err, rows) => (err ? reject(err) : resolve(rows as { data: string }[]))),
    );
    return rows.map((row) => JSON.parse(row.data) as { type: string; tool?: string; state?: { status?: string } });
  } finally {
    db.close();
  }
}

describe('opencode (real opencode-ai native binary) under sim:oracle, behind the proxy-only network', () => {
  it('solves the tasks through its own bash tool', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(TASKS);
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      expect(toolNamesCalled(r.calls)).toContain('bash');
    }
  });

  it('speaks streaming Chat Completions to the proxy; its session title goes to the helper alias', () => {
    for (const r of rollouts) {
      expect(r.calls.map((c) => c.seq)).toEqual(r.calls.map((_, i) => i + 1));
      const policy = r.calls.filter((c) => c.label === 'policy');
      expect(policy.length, explain(r)).toBeGreaterThanOrEqual(2);
      for (const c of policy) {
        expect(c).toMatchObject({ protocol: 'chat', stream: true, status: 200, model: 'policy', missingTokenIds: false });
        const tools = (c.request as { tools?: { function?: { name?: string } }[] }).tools ?? [];
        expect(tools.map((t) => t.function?.name)).toContain('bash');
      }
      for (const c of r.calls.filter((c) => c.label !== 'policy')) expect(c).toMatchObject({ label: 'helper', model: 'policy-small' });
    }
  });

  it('collects its session store and logs', async () => {
    for (const r of rollouts) {
      expect(r.transcripts, explain(r)).toContain('opencode/opencode.db');
      const parts = await storedParts(r);
      expect(parts.some((p) => p.type === 'tool' && p.tool === 'bash' && p.state?.status === 'completed')).toBe(true);
      // The `--format json` event stream is the harness's own log of the episode.
      expect(readFileSync(path.join(r.artifacts, 'agent', 'stdout.txt'), 'utf8')).toMatch(/"type":"tool_use"/);
    }
  });
});
