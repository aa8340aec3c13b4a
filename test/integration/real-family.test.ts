/**
 * Harnesses under a real model family's wire (`sim:oracle@qwen3`): forge-agent on every claw-basic task,
 * two real harnesses (Qwen Code over Chat Completions, Claude Code over Anthropic Messages) on two tasks
 * each, every rollout scoring 1.
 */
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { CLAW_BASIC, explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const QWEN3 = { model: { upstream: 'sim:oracle@qwen3', name: 'policy' } };
const ALL_TASKS = readdirSync(CLAW_BASIC, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const TWO_TASKS = ['create-config-file', 'sales-by-region'];

describe.each([
  { harness: 'forge-agent', tasks: ALL_TASKS, concurrency: 4 },
  { harness: 'qwen-code', tasks: TWO_TASKS, concurrency: 2 },
  { harness: 'claude-code', tasks: TWO_TASKS, concurrency: 2 },
])('$harness under sim:oracle@qwen3', ({ harness, tasks, concurrency }) => {
  let rollouts: HarnessRolloutRecord[];

  beforeAll(async () => {
    if (harness !== 'forge-agent') await harnessLayer(harness);
    ({ rollouts } = await runHarness(harness, tasks, { ...QWEN3, concurrency }));
  }, 900_000);

  it('scores 1 on every task, its policy calls carrying qwen3 token ids', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(tasks);
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      const policy = r.calls.filter((c) => c.label === 'policy' && c.status === 200);
      expect(policy.length, explain(r)).toBeGreaterThan(1);
      for (const c of policy) {
        expect(c.missingTokenIds).toBe(false);
        // qwen3's ids reach past the built-in model's special tokens: <|im_end|> is 151645
        expect(Array.from(c.completionTokenIds ?? [])).toContain(151645);
      }
    }
  });
});
