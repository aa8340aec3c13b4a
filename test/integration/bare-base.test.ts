import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

/**
 * A task FROM the debootstrapped Debian base with nothing added (no Node, no Python): forge-agent runs on its
 * read-only Node layer and every real harness on its own layer's, each solving the task under sim:oracle.
 * The task's WORKDIR /app is where each starts (the reference solution writes a relative path) and where
 * the grader runs (its test.sh checks $PWD).
 */
const TASK = path.resolve('test/fixtures/bare-debian/write-greeting');
const HARNESSES = ['forge-agent', 'claude-code', 'codex', 'openclaw', 'opencode', 'qwen-code'];
const rollouts: Record<string, HarnessRolloutRecord> = {};

beforeAll(async () => {
  for (const h of HARNESSES.filter((h) => h !== 'forge-agent')) await harnessLayer(h);
  for (const h of HARNESSES) {
    const { rollouts: rs } = await runHarness(h, [TASK]);
    rollouts[h] = rs[0]!;
  }
}, 2_400_000);

describe.each(HARNESSES)('%s on a bare debootstrapped Debian', (harness) => {
  it('solves the task from the image WORKDIR, graded from there', () => {
    const r = rollouts[harness]!;
    expect(r.reward, explain(r)).toBe(1);
    expect(r.errorType, explain(r)).toBeNull();
    expect(r.calls.length, explain(r)).toBeGreaterThan(0);
    const stdout = path.join(r.artifacts, 'verifier', 'test-stdout.txt');
    expect(existsSync(stdout) && readFileSync(stdout, 'utf8')).toContain('grading from /app');
  });
});
