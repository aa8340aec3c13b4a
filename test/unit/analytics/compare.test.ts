import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunBehaviour } from '../../../src/analytics/behaviour/behaviour-summary.js';
import { rolloutBehaviour, type RolloutBehaviour } from '../../../src/analytics/behaviour/rollout-behaviour.js';
import { runBehaviour } from '../../../src/analytics/behaviour/run-behaviour.js';
import { bootstrapInterval } from '../../../src/analytics/compare/bootstrap.js';
import { compareRuns, rolloutUrl, type RunComparison } from '../../../src/analytics/compare/compare-runs.js';
import { compareCommand } from '../../../src/cli/commands/compare.js';
import { statsCommand } from '../../../src/cli/commands/stats.js';
import { STORE_FILE, Store } from '../../../src/store/store.js';
import { PROBE_TASK, storeRun } from '../../helpers/harness-calls.js';
import { captureStdout } from '../../helpers/stdout.js';

describe('the bootstrap interval', () => {
  const meanDiff = (a: readonly number[][], b: readonly number[][]) => {
    const mean = (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length;
    return mean(b.flat()) - mean(a.flat());
  };

  it('is the same for the same seed, and collapses on data without spread', () => {
    const strata = [{ a: [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], b: [8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6] }];
    const first = bootstrapInterval(strata, meanDiff, { seed: 7, stream: 's' });
    expect(bootstrapInterval(strata, meanDiff, { seed: 7, stream: 's' })).toEqual(first);
    expect(bootstrapInterval(strata, meanDiff, { seed: 8, stream: 's' })).not.toEqual(first);
    expect(bootstrapInterval([{ a: [0, 0, 0], b: [1, 1, 1] }], meanDiff, { seed: 1, stream: 's' })).toEqual({ low: 1, high: 1 });
  });

  it('holds the estimate, and narrows as the samples grow', () => {
    const sample = (n: number) => [{ a: Array.from({ length: n }, (_, i) => i % 2), b: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? 0 : 1)) }];
    const small = bootstrapInterval(sample(8), meanDiff, { seed: 1, stream: 's' })!;
    const large = bootstrapInterval(sample(400), meanDiff, { seed: 1, stream: 's' })!;
    expect(small.low).toBeLessThan(0.25);
    expect(small.high).toBeGreaterThan(0.25);
    expect(large.low).toBeLessThan(0.25);
    expect(large.high).toBeGreaterThan(0.25);
    expect(large.high - large.low).toBeLessThan((small.high - small.low) / 3);
  });

  it('is undefined where a side has no values', () => {
    const diff = (a: readonly number[][], b: readonly number[][]) => (a.flat().length && b.flat().length ? meanDiff(a, b) : null);
    expect(bootstrapInterval([{ a: [], b: [1] }], diff, { seed: 1, stream: 's' })).toBeNull();
  });
});

describe('a comparison over tasks', () => {
  const rollout = (taskId: string, reward: number, selfVerified: boolean | null): RolloutBehaviour => ({
    ...rolloutBehaviour({ id: `${taskId}.${reward}`, taskId, harness: 'h', reward, rewardDetails: null, phases: {}, calls: [] }),
    selfVerified,
  });
  const run = (runId: string, rollouts: RolloutBehaviour[]): RunBehaviour => ({
    runId,
    harness: 'h',
    upstream: 'sim:oracle',
    simulated: true,
    k: 2,
    passThreshold: 1,
    rollouts,
  });

  it('averages per-task values over the tasks where both runs have one', () => {
    // B's rollouts that wrote nothing leave task y without a value: y is left out of both sides
    const a = run('a', [rollout('x', 1, true), rollout('x', 1, true), rollout('y', 1, false), rollout('y', 1, false)]);
    const b = run('b', [rollout('x', 1, true), rollout('x', 0, null), rollout('y', 0, null), rollout('y', 0, null)]);
    const c = compareRuns(a, b);
    expect(c.overall.find((v) => v.key === 'selfVerification')).toMatchObject({ a: 1, b: 1, diff: 0 });
    expect(c.overall.find((v) => v.key === 'reward')).toMatchObject({ a: 1, b: 0.25, diff: -0.75 });
    expect(c.overall.find((v) => v.key === 'passHatK')).toMatchObject({ label: 'pass^2', a: 1, b: 0 });
  });
});

describe('comparing two stored runs', () => {
  let dir: string;
  let comparison: RunComparison;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'of-compare-'));
    const store = await Store.open(path.join(dir, STORE_FILE));
    // A: Claude Code solves the probe task three times. B: it solves it once and makes no call twice (reward 0).
    await storeRun(store, {
      runId: 'run-a',
      harness: 'claude-code',
      upstream: 'sim:oracle',
      k: 3,
      taskPaths: [PROBE_TASK],
      rollouts: [1, 2, 3].map(() => ({ taskId: 'write-and-check', reward: 1, episode: 'claude-code' })),
    });
    await storeRun(store, {
      runId: 'run-b',
      harness: 'claude-code',
      upstream: 'sim:noisy:0.5',
      k: 3,
      taskPaths: [PROBE_TASK],
      rollouts: [
        { taskId: 'write-and-check', reward: 1, episode: 'claude-code' },
        { taskId: 'write-and-check', reward: 0, rewardDetails: { reward: 0, checks: { report_exists: false, report_content: false } } },
        { taskId: 'write-and-check', reward: 0, rewardDetails: { reward: 0, checks: { report_exists: false, report_content: false } } },
        { taskId: 'only-in-b', reward: 1 },
      ],
    });
    await store.close();
    comparison = compareRuns(await runBehaviour(dir, { runId: 'run-a' }), await runBehaviour(dir, { runId: 'run-b' }), {
      inspector: { a: 'http://127.0.0.1:7/', b: 'http://127.0.0.1:8' },
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => vi.restoreAllMocks());

  const value = (key: string) => comparison.overall.find((v) => v.key === key)!;

  it('sets rewards, pass@k, pass^k and behaviour side by side with B − A and its interval', () => {
    expect(comparison.k).toBe(3);
    expect(value('reward')).toMatchObject({ a: 1, b: 1 / 3, interval: { low: -1, high: 0 } });
    expect(value('reward').diff).toBeCloseTo(-2 / 3);
    expect(value('passAtK')).toMatchObject({ label: 'pass@3', a: 1, b: 1, diff: 0 });
    expect(value('passHatK')).toMatchObject({ label: 'pass^3', a: 1, b: 0, diff: -1 });
    expect(value('turns')).toMatchObject({ a: 5, b: 5 / 3 });
    expect(value('turns').interval!.low).toBeCloseTo(-5);
    expect(value('turns').interval!.high).toBe(0);
    // self-verification applies only where something was written: the one episode B has
    expect(value('selfVerification')).toMatchObject({ a: 1, b: 1, diff: 0 });
    expect(value('planCompletion')).toMatchObject({ a: 1, b: 1 / 3 });
    expect(value('errorRecovery')).toMatchObject({ a: 1, b: 1 });
    expect(value('promptTokens').a).toBe(20297 + 20439 + 20566 + 20681 + 20792); // from each answer's usage
    expect(comparison.onlyIn).toEqual({ a: [], b: ['only-in-b'] });
  });

  it('lists the task whose outcome flipped, with links to its rollouts in each inspector', () => {
    expect(comparison.flipped.map((t) => [t.taskId, t.outcome])).toEqual([['write-and-check', { a: 'pass', b: 'mixed' }]]);
    const [flipped] = comparison.flipped;
    expect(flipped!.links.a.map((l) => l.url)).toEqual([0, 1, 2].map((i) => `http://127.0.0.1:7/#/rollout/run-a.write-and-check.${i}.1`));
    expect(flipped!.links.b.map((l) => [l.url, l.reward])).toEqual([
      ['http://127.0.0.1:8/#/rollout/run-b.write-and-check.0.1', 1],
      ['http://127.0.0.1:8/#/rollout/run-b.write-and-check.1.1', 0],
      ['http://127.0.0.1:8/#/rollout/run-b.write-and-check.2.1', 0],
    ]);
    expect(rolloutUrl('r 1')).toBe('#/rollout/r%201');
  });

  it('`openforge compare` prints it, the same every time, and writes a self-contained HTML report', async () => {
    const html = path.join(dir, 'report.html');
    const args = [dir, dir, '--run-a', 'run-a', '--run-b', 'run-b', '--inspector', 'http://127.0.0.1:7/'];
    let stdout = captureStdout();
    await compareCommand().parseAsync([...args, '--html', html], { from: 'user' });
    const text = stdout();
    expect(text).toMatch(/reward\s+1\.000\s+0\.333\s+-0\.667\s+\[-1\.000, 0\.000\]/);
    expect(text).toMatch(/pass\^3\s+1\.000\s+0\.000\s+-1\.000/);
    expect(text).toContain('write-and-check: pass → mixed');
    expect(text).toContain('B http://127.0.0.1:7/#/rollout/run-b.write-and-check.1.1 (reward 0)');
    expect(text).toContain('only in B (left out): only-in-b');
    const report = readFileSync(html, 'utf8');
    expect(report).not.toMatch(/<(script|link)\b/); // nothing to fetch
    expect(report).toContain('<svg class="chart paired" data-chart="reward"');
    expect(report).toMatch(/data-label="write-and-check" data-side="b" data-value="0.3333/);

    vi.restoreAllMocks();
    stdout = captureStdout();
    await compareCommand().parseAsync([...args, '--json'], { from: 'user' });
    const once = stdout();
    vi.restoreAllMocks();
    stdout = captureStdout();
    await compareCommand().parseAsync([...args, '--json'], { from: 'user' });
    expect(stdout()).toBe(once);
    expect(JSON.parse(once).bootstrap).toEqual({ resamples: 2000, seed: 1, level: 0.95 });
  });

  it('refuses to compare a run with itself, naming the fix', async () => {
    await expect(compareCommand().parseAsync([dir, dir], { from: 'user' })).rejects.toThrow(/both sides are run run-b/);
    await expect(compareCommand().parseAsync([dir, dir], { from: 'user' })).rejects.toMatchObject({
      hint: expect.stringContaining('runs there: run-a, run-b'),
    });
    expect(existsSync(path.join(dir, STORE_FILE))).toBe(true);
  });

  it('`openforge stats --behaviour` prints the metrics per task and overall, and as JSON', async () => {
    let stdout = captureStdout();
    await statsCommand().parseAsync([dir, '--run', 'run-a', '--behaviour'], { from: 'user' });
    expect(stdout()).toMatch(/write-and-check\s+3\s+1\.000\s+1\.000\s+1\.000\s+1\.000\s+1\.00\s+0\.08\s+1\.00\s+1\.00\s+1\.0\s+1\.0\s+5\.0\s+4\.0/);
    expect(stdout()).toContain('tool calls: Bash 12');
    vi.restoreAllMocks();
    stdout = captureStdout();
    await statsCommand().parseAsync([dir, '--run', 'run-b', '--behaviour', '--json'], { from: 'user' });
    const json = JSON.parse(stdout());
    expect(json.overall.metrics.turns).toEqual({ mean: 5 / 4, n: 4 });
    expect(json.tasks.map((t: { name: string }) => t.name)).toEqual(['only-in-b', 'write-and-check']);
    expect(json.rollouts).toHaveLength(4);
  });
});
