import { describe, expect, it } from 'vitest';
import { parseReward } from '../../../src/rollout/reward.js';
import { formatSummary, passAtK, passHatK, summarize } from '../../../src/analytics/run-summary.js';
import type { RolloutRecord } from '../../../src/store/store.js';

function rollout(taskId: string, sampleIndex: number, reward: number | null, errorType: string | null = null): RolloutRecord {
  return {
    id: `${taskId}.${sampleIndex}`,
    runId: 'r',
    taskId,
    sampleIndex,
    attempt: 1,
    harness: 'h',
    status: reward === null ? 'error' : 'finished',
    reward,
    rewardDetails: null,
    errorType,
    errorMessage: null,
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    phases: {},
    parent: null,
    staleness: null,
    stale: false,
  };
}

describe('pass@k and pass^k', () => {
  it('match the unbiased estimators on known values', () => {
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(4, 1, 4)).toBe(1);
    expect(passAtK(4, 2, 1)).toBeCloseTo(0.5);
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10); // 1 - C(3,2)/C(5,2)
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(4, 3, 4)).toBe(0);
    expect(passHatK(5, 3, 2)).toBeCloseTo(3 / 10); // C(3,2)/C(5,2)
  });

  it('summarises per task and overall, counting errors by type', () => {
    const s = summarize(
      [rollout('a', 0, 1), rollout('a', 1, 0, 'agent_timeout'), rollout('b', 0, 1), rollout('b', 1, 1), rollout('c', 0, null, 'build'), rollout('c', 1, 0.5)],
      { runId: 'r', harness: 'h', k: 2, passThreshold: 1, simulated: true, wallTimeSec: 30 },
    );
    const a = s.tasks.find((t) => t.taskId === 'a')!;
    expect(a).toMatchObject({ n: 2, passes: 1, passAt1: 0.5, passAtK: 1, passHatK: 0, errors: { agent_timeout: 1 } });
    expect(s.tasks.find((t) => t.taskId === 'b')).toMatchObject({ passAtK: 1, passHatK: 1 });
    expect(s.tasks.find((t) => t.taskId === 'c')).toMatchObject({ passes: 0, meanReward: 0.5 });
    expect(s.meanReward).toBeCloseTo(3.5 / 5);
    expect(s.errors).toEqual({ agent_timeout: 1, build: 1 });
    expect(s.rolloutsPerMinute).toBeCloseTo(12);
    const table = formatSummary(s);
    expect(table).toMatch(/pass\^2/);
    expect(table).toMatch(/SIMULATED/);
    expect(table).toMatch(/agent_timeout: 1, build: 1/);
  });
});

describe('upstream errors', () => {
  it('are counted, but are neither tries of pass@k nor rewards of the mean', () => {
    const s = summarize([rollout('a', 0, 1), rollout('a', 1, null, 'upstream_error'), rollout('b', 0, 0), rollout('b', 1, null, 'harness_crash')], {
      runId: 'r',
      harness: 'h',
      k: 2,
      passThreshold: 1,
      simulated: false,
      wallTimeSec: 10,
    });
    // a: one try, passed; b: two tries (a crash is the policy's), none passed
    expect(s.tasks.find((t) => t.taskId === 'a')).toMatchObject({ n: 2, passes: 1, passAt1: 1, passAtK: 1, passHatK: 1, meanReward: 1 });
    expect(s.tasks.find((t) => t.taskId === 'b')).toMatchObject({ n: 2, passAt1: 0, meanReward: 0 });
    expect(s.meanReward).toBeCloseTo(0.5);
    expect(s.errors).toEqual({ upstream_error: 1, harness_crash: 1 });
    expect(formatSummary(s)).toMatch(/errors: upstream_error: 1, harness_crash: 1/);
  });
});

describe('reward files', () => {
  it('reads reward.txt and reward.json, preferring JSON', () => {
    expect(parseReward('1\n', null)).toEqual({ value: 1, details: null });
    expect(parseReward(null, '{"reward": 0.75, "checks": {"a": true}}')).toEqual({ value: 0.75, details: { reward: 0.75, checks: { a: true } } });
    expect(parseReward('0', '{"score": 0.5}').value).toBe(0.5);
  });

  it('rejects missing, non-numeric and out-of-range rewards as verifier failures', () => {
    expect(() => parseReward(null, null)).toThrow(/neither/);
    expect(() => parseReward('yes', null)).toThrow(/not a number/);
    expect(() => parseReward('1.5', null)).toThrow(/\[0, 1\]/);
    expect(() => parseReward(null, '{"a": 1, "b": 2}')).toThrow(/no numeric "reward"/);
    expect(() => parseReward(null, '{oops')).toThrow(/not valid JSON/);
  });
});

describe("each benchmark's headline metric", () => {
  it('is computed the way each benchmark computes it, beside pass@k', () => {
    const benchmark: Record<string, string> = {
      tb1: 'terminal-bench',
      tb2: 'terminal-bench',
      q1: 'qwenclawbench',
      q2: 'qwenclawbench',
      c1: 'claw-eval',
      c2: 'claw-eval',
      p1: 'pinchbench',
    };
    const s = summarize(
      [
        ...[1, 0, 1].map((r, i) => rollout('tb1', i, r)),
        rollout('tb2', 0, 1),
        rollout('tb2', 1, null, 'infrastructure'),
        rollout('tb2', 2, 0),
        ...[1, 0.5].map((r, i) => rollout('q1', i, r)),
        ...[0.25, 0.25].map((r, i) => rollout('q2', i, r)),
        ...[0.8, 0.9, 0.75].map((r, i) => rollout('c1', i, r)),
        ...[0.9, 0.2, 0.1].map((r, i) => rollout('c2', i, r)),
        rollout('p1', 0, 0.8),
        rollout('other', 0, 1),
      ],
      { runId: 'r', harness: 'h', k: 3, passThreshold: 1, simulated: true, wallTimeSec: 1, benchmarkOf: (id) => benchmark[id] },
    );
    const by = Object.fromEntries(s.benchmarks.map((b) => [b.benchmark, b]));
    expect(Object.keys(by)).toEqual(['claw-eval', 'pinchbench', 'qwenclawbench', 'terminal-bench']);
    // Terminal-Bench: 3 of 6 trials solved, the errored one counted as failed
    expect(by['terminal-bench']).toMatchObject({ tasks: 2, values: { accuracy: 0.5 }, text: 'accuracy 0.500 (3 of 6 trials)' });
    // QwenClawBench: the sum of task means, 0.75 + 0.25
    expect(by.qwenclawbench!.values).toEqual({ score: 1, share: 0.5 });
    // Claw-Eval: a trial passes at 0.75; c1 passes all three, c2 one
    expect(by['claw-eval']!.values).toEqual({ pass_at_3: 1, pass_hat_3: 0.5 });
    expect(by.pinchbench!.values.score).toBeCloseTo(0.8);
    expect(formatSummary(s)).toContain('terminal-bench (2 tasks): accuracy 0.500 (3 of 6 trials)');
    expect(formatSummary(s)).toContain('claw-eval (2 tasks): Pass@3 1.000 · Pass^3 0.500');
  });
});
