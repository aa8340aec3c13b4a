/**
 * Harnesses under a real model family's wire (`sim:oracle@qwen3`): forge-agent on every claw-basic task,
 * two real harnesses (Qwen Code over Chat Completions, Claude Code over Anthropic Messages) on two tasks
 * each, every rollout scoring 1; then the same in token-in mode, where every policy call after a rollout's
 * first extends its exact tokens (OpenClaw's too, whose runtime context each request drops), and forge-agent under
 * `@deepseek_v3` in token-in mode.
 */
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import type { RecordedCall } from '../../src/records/call.js';
import { CLAW_BASIC, explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const QWEN3 = { model: { upstream: 'sim:oracle@qwen3', name: 'policy' } };
const tokenIn = (family: string) => ({ model: { upstream: `sim:oracle@${family}`, name: 'policy', token_in: true } });
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
  const run = solvedRun(harness, tasks, { ...QWEN3, concurrency });

  it('scores 1 on every task, its policy calls carrying qwen3 token ids', () => {
    for (const [policy] of run.policyCalls()) {
      for (const c of policy) {
        expect(c.missingTokenIds).toBe(false);
        // qwen3's ids reach past the built-in model's special tokens: <|im_end|> is 151645
        expect(Array.from(c.completionTokenIds ?? [])).toContain(151645);
      }
    }
  });
});

describe.each([
  { harness: 'forge-agent', family: 'qwen3', tasks: ALL_TASKS, concurrency: 4 },
  { harness: 'forge-agent', family: 'deepseek_v3', tasks: ALL_TASKS, concurrency: 4 },
  { harness: 'qwen-code', family: 'qwen3', tasks: TWO_TASKS, concurrency: 2 },
  { harness: 'claude-code', family: 'qwen3', tasks: TWO_TASKS, concurrency: 2 },
  // its runtime context, a last user message left out of the next request, stays in the token history
  { harness: 'openclaw', family: 'qwen3', tasks: ['create-config-file'], concurrency: 1 },
])('$harness under sim:oracle@$family, token-in', ({ harness, family, tasks, concurrency }) => {
  const run = solvedRun(harness, tasks, { ...tokenIn(family), concurrency });

  it("scores 1 on every task, and each policy call's prompt extends the previous call's prompt and sampled ids", () => {
    for (const [policy, r] of run.policyCalls()) {
      for (const [i, c] of policy.entries()) {
        expect(c).toMatchObject({ tokenMode: 'token_in', family, missingTokenIds: false });
        if (i === 0) continue;
        const before = [...policy[i - 1]!.promptTokenIds!, ...policy[i - 1]!.completionTokenIds!];
        expect(Array.from(c.promptTokenIds!).slice(0, before.length), explain(r)).toEqual(before);
      }
    }
  });
});

/** A run of the harness on the tasks (its layer built first), checked to score 1 on every task: each rollout's successful policy calls. */
function solvedRun(harness: string, tasks: string[], overrides: Record<string, unknown>): { policyCalls(): [RecordedCall[], HarnessRolloutRecord][] } {
  let rollouts: HarnessRolloutRecord[];
  beforeAll(async () => {
    if (harness !== 'forge-agent') await harnessLayer(harness);
    ({ rollouts } = await runHarness(harness, tasks, overrides));
  }, 900_000);
  return {
    policyCalls() {
      expect(rollouts.map((r) => r.taskId).sort()).toEqual(tasks);
      return rollouts.map((r) => {
        expect(r.reward, explain(r)).toBe(1);
        const policy = r.calls.filter((c) => c.label === 'policy' && c.status === 200);
        expect(policy.length, explain(r)).toBeGreaterThan(1);
        return [policy, r] as [RecordedCall[], HarnessRolloutRecord];
      });
    },
  };
}
