import { mean } from './grouping.js';

/**
 * Benchmarks that call a trial passed at a score below 1, by their own rule: Claw-Eval passes at 0.75
 * (scoring.py is_pass), and its scoring gives an agent that does nothing 0.2 (robustness 1.0 when no tool call
 * failed), so 1 and 0 are not its reference scores.
 */
export const BENCHMARK_PASS_THRESHOLD: Readonly<Record<string, number>> = { 'claw-eval': 0.75 };

/** What a benchmark's metric reads of a task's rollouts: their rewards in sample order (null: errored). */
interface TaskRewards {
  taskId: string;
  rewards: (number | null)[];
}

/** A benchmark's own headline metric over the run's tasks of that benchmark, computed its way. */
export interface BenchmarkMetric {
  benchmark: string;
  tasks: number;
  /** e.g. "accuracy 0.667 (4 of 6 rollouts)". */
  text: string;
  values: Record<string, number>;
}

/**
 * Terminal-Bench: accuracy, the share of trials that scored 1 (an errored trial counts as a failure, as in
 * Harbor's mean). PinchBench: the mean of each task's mean score. QwenClawBench: the sum of each task's mean
 * score (its "total") and that as a share of the tasks. Claw-Eval: Pass@3 (a task passes in any of its trials)
 * and Pass^3 (in all), a trial passing at 0.75, over the first 3 trials of each task, missing ones counted as failed.
 */
export function benchmarkMetrics(tasks: TaskRewards[], benchmarkOf: (taskId: string) => string | undefined): BenchmarkMetric[] {
  const groups = new Map<string, TaskRewards[]>();
  for (const t of tasks) {
    const b = benchmarkOf(t.taskId);
    if (b) groups.set(b, [...(groups.get(b) ?? []), t]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([benchmark, ts]) => metricOf(benchmark, ts));
}

function metricOf(benchmark: string, ts: TaskRewards[]): BenchmarkMetric {
  const taskMean = (t: TaskRewards) => mean(t.rewards.map((r) => r ?? 0)) ?? 0;
  if (benchmark === 'terminal-bench') {
    const trials = ts.flatMap((t) => t.rewards);
    const solved = trials.filter((r) => r === 1).length;
    const accuracy = trials.length ? solved / trials.length : 0;
    return { benchmark, tasks: ts.length, text: `accuracy ${accuracy.toFixed(3)} (${solved} of ${trials.length} trials)`, values: { accuracy } };
  }
  if (benchmark === 'qwenclawbench') {
    const total = ts.reduce((s, t) => s + taskMean(t), 0);
    return {
      benchmark,
      tasks: ts.length,
      text: `score ${total.toFixed(2)} of ${ts.length} (${((100 * total) / ts.length).toFixed(1)}%)`,
      values: { score: total, share: total / ts.length },
    };
  }
  if (benchmark === 'claw-eval') {
    const trials = (t: TaskRewards) => [0, 1, 2].map((i) => (t.rewards[i] ?? 0) >= BENCHMARK_PASS_THRESHOLD['claw-eval']!);
    const any = ts.filter((t) => trials(t).some(Boolean)).length / ts.length;
    const all = ts.filter((t) => trials(t).every(Boolean)).length / ts.length;
    return { benchmark, tasks: ts.length, text: `Pass@3 ${any.toFixed(3)} · Pass^3 ${all.toFixed(3)}`, values: { pass_at_3: any, pass_hat_3: all } };
  }
  const score = mean(ts.map(taskMean)) ?? 0;
  return { benchmark, tasks: ts.length, text: `mean score ${score.toFixed(3)}`, values: { score } };
}
