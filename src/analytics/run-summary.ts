import type { RolloutRecord } from '../store/store.js';
import { groupBy, mean } from './grouping.js';
import { textTable } from './text-table.js';
import { benchmarkMetrics, type BenchmarkMetric } from './benchmark-metrics.js';

export interface TaskSummary {
  taskId: string;
  n: number;
  rewards: (number | null)[];
  meanReward: number | null;
  passes: number;
  passAt1: number;
  /** Unbiased pass@k with k = rollouts per task: the chance at least one of k samples passes. */
  passAtK: number;
  /** pass^k: the chance all k samples pass (Claw-Eval's headline metric). */
  passHatK: number;
  errors: Record<string, number>;
}

export interface RunSummary {
  runId: string;
  simulated: boolean;
  harness: string;
  k: number;
  tasks: TaskSummary[];
  rollouts: number;
  meanReward: number | null;
  passAt1: number;
  passAtK: number;
  passHatK: number;
  errors: Record<string, number>;
  /** Each benchmark's own headline metric, for the run's tasks imported from one (docs/tasks.md). */
  benchmarks: BenchmarkMetric[];
  wallTimeSec: number;
  rolloutsPerMinute: number;
}

/** C(n, k) as a float; fine for the sample counts of a run. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Unbiased estimators over n samples with c passes (Chen et al. 2021 for pass@k). */
export function passAtK(n: number, c: number, k: number): number {
  if (n === 0 || k > n) return 0;
  return 1 - choose(n - c, k) / choose(n, k);
}

export function passHatK(n: number, c: number, k: number): number {
  if (n === 0 || k > n) return 0;
  return choose(c, k) / choose(n, k);
}

/** pass@1, pass@k and pass^k of one task's n rollouts of which c passed (k at most n). */
export function passRates(n: number, c: number, k: number): { passAt1: number; passAtK: number; passHatK: number } {
  const kk = Math.min(k, n);
  return { passAt1: passAtK(n, c, 1), passAtK: passAtK(n, c, kk), passHatK: passHatK(n, c, kk) };
}

export function summarize(
  rollouts: RolloutRecord[],
  opts: {
    runId: string;
    harness: string;
    k: number;
    passThreshold: number;
    simulated: boolean;
    wallTimeSec: number;
    /** The benchmark a task comes from (its task.toml `[metadata] benchmark`), when known. */
    benchmarkOf?: (taskId: string) => string | undefined;
  },
): RunSummary {
  const byTask = groupBy(rollouts, (r) => r.taskId);
  const errors: Record<string, number> = {};
  const tasks: TaskSummary[] = [...byTask.entries()].map(([taskId, rs]) => {
    rs.sort((a, b) => a.sampleIndex - b.sampleIndex);
    const rewards = rs.map((r) => r.reward);
    const passes = rs.filter((r) => r.reward !== null && r.reward >= opts.passThreshold).length;
    // An outage at the upstream says nothing of the policy: such rollouts are counted as errors, not as tries.
    const tried = rs.filter((r) => r.errorType !== 'upstream_error').length;
    const taskErrors: Record<string, number> = {};
    for (const r of rs) {
      if (r.errorType) {
        taskErrors[r.errorType] = (taskErrors[r.errorType] ?? 0) + 1;
        errors[r.errorType] = (errors[r.errorType] ?? 0) + 1;
      }
    }
    return {
      taskId,
      n: rs.length,
      rewards,
      meanReward: mean(rewards.filter((x): x is number => x !== null)),
      passes,
      ...passRates(tried, passes, opts.k),
      errors: taskErrors,
    };
  });
  const allRewards = rollouts.map((r) => r.reward).filter((x): x is number => x !== null);
  return {
    runId: opts.runId,
    simulated: opts.simulated,
    harness: opts.harness,
    k: opts.k,
    tasks,
    rollouts: rollouts.length,
    meanReward: mean(allRewards),
    passAt1: mean(tasks.map((t) => t.passAt1)) ?? 0,
    passAtK: mean(tasks.map((t) => t.passAtK)) ?? 0,
    passHatK: mean(tasks.map((t) => t.passHatK)) ?? 0,
    errors,
    benchmarks: opts.benchmarkOf ? benchmarkMetrics(tasks, opts.benchmarkOf) : [],
    wallTimeSec: opts.wallTimeSec,
    rolloutsPerMinute: opts.wallTimeSec > 0 ? (rollouts.length / opts.wallTimeSec) * 60 : 0,
  };
}

function fmt(x: number | null, digits = 2): string {
  return x === null ? '-' : x.toFixed(digits);
}

/** The summary table the CLI prints at the end of a run. */
export function formatSummary(s: RunSummary): string {
  // With one rollout per task pass@k and pass^k are pass@1: show it once.
  const withK = s.k > 1;
  const header = ['task', 'n', 'rewards', 'mean', 'pass@1', ...(withK ? [`pass@${s.k}`, `pass^${s.k}`] : []), 'errors'];
  const rows = s.tasks.map((t) => [
    t.taskId,
    String(t.n),
    t.rewards.map((r) => fmt(r, r !== null && Number.isInteger(r) ? 0 : 2)).join(' '),
    fmt(t.meanReward),
    fmt(t.passAt1),
    ...(withK ? [fmt(t.passAtK), fmt(t.passHatK)] : []),
    Object.entries(t.errors)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ') || '-',
  ]);
  const errorText =
    Object.entries(s.errors)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ') || 'none';
  return [
    ...textTable(header, rows),
    '',
    `run ${s.runId} · harness ${s.harness}${s.simulated ? ' · model: SIMULATED (sim upstream, no real LLM)' : ''}`,
    `rollouts ${s.rollouts} · mean reward ${fmt(s.meanReward, 3)} · pass@1 ${fmt(s.passAt1, 3)}${withK ? ` · pass@${s.k} ${fmt(s.passAtK, 3)} · pass^${s.k} ${fmt(s.passHatK, 3)}` : ''}`,
    ...s.benchmarks.map((b) => `${b.benchmark} (${b.tasks} task${b.tasks > 1 ? 's' : ''}): ${b.text}`),
    `errors: ${errorText}`,
    `wall time ${s.wallTimeSec.toFixed(1)} s · ${s.rolloutsPerMinute.toFixed(1)} rollouts/min`,
  ].join('\n');
}
