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
