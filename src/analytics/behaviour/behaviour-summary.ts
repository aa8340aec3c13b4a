import { passAtK, passHatK } from '../run-summary.js';
import { BEHAVIOUR_METRICS } from './metrics.js';
import type { RolloutBehaviour } from './rollout-behaviour.js';

/** A run's rollouts with their behaviour, and what the comparison needs of its config. */
export interface RunBehaviour {
  runId: string;
  harness: string;
  /** The model upstream (`sim:oracle`, a URL). */
  upstream: string;
  simulated: boolean;
  /** Rollouts per task: the k of pass@k. */
  k: number;
  passThreshold: number;
  rollouts: RolloutBehaviour[];
}

/** A metric's mean over the rollouts where it applies, and how many those are. */
export interface MetricMean {
  mean: number | null;
  n: number;
}

export interface RewardStats {
  mean: number | null;
  passAt1: number;
  passAtK: number;
  passHatK: number;
}

/** Rewards and behaviour of a group of rollouts: one task's, one harness's, or the whole run's. */
export interface BehaviourGroup {
  name: string;
  rollouts: number;
  reward: RewardStats;
  metrics: Record<string, MetricMean>;
  /** Calls per tool name, summed. */
  tools: Record<string, number>;
}

export interface BehaviourSummary {
  runId: string;
  harness: string;
  upstream: string;
  simulated: boolean;
  k: number;
  tasks: BehaviourGroup[];
  harnesses: BehaviourGroup[];
  overall: BehaviourGroup;
}

export function summarizeBehaviour(run: RunBehaviour): BehaviourSummary {
  const group = (name: string, rollouts: RolloutBehaviour[]) => behaviourGroup(name, rollouts, run.k, run.passThreshold);
  return {
    runId: run.runId,
    harness: run.harness,
    upstream: run.upstream,
    simulated: run.simulated,
    k: run.k,
    tasks: [...groupBy(run.rollouts, (r) => r.taskId)].map(([task, rs]) => group(task, rs)),
    harnesses: [...groupBy(run.rollouts, (r) => r.harness)].map(([harness, rs]) => group(harness, rs)),
    overall: group('overall', run.rollouts),
  };
}

export function behaviourGroup(name: string, rollouts: readonly RolloutBehaviour[], k: number, passThreshold: number): BehaviourGroup {
  const metrics: Record<string, MetricMean> = {};
  for (const metric of BEHAVIOUR_METRICS) metrics[metric.key] = meanOf(rollouts.map(metric.of));
  const tools: Record<string, number> = {};
  for (const r of rollouts) for (const [tool, n] of Object.entries(r.toolsUsed)) tools[tool] = (tools[tool] ?? 0) + n;
  return { name, rollouts: rollouts.length, reward: rewardStats(rollouts, k, passThreshold), metrics, tools };
}

/** Mean reward over rollouts; pass@1, pass@k and pass^k per task, averaged over tasks (as the run summary does). */
export function rewardStats(rollouts: readonly Pick<RolloutBehaviour, 'taskId' | 'reward'>[], k: number, passThreshold: number): RewardStats {
  const perTask = [...groupBy(rollouts, (r) => r.taskId).values()].map((rs) => {
    const n = rs.length;
    const c = rs.filter((r) => r.reward !== null && r.reward >= passThreshold).length;
    const kk = Math.min(k, n);
    return { passAt1: passAtK(n, c, 1), passAtK: passAtK(n, c, kk), passHatK: passHatK(n, c, kk) };
  });
  const average = (values: number[]) => (values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0);
  return {
    mean: meanOf(rollouts.map((r) => r.reward)).mean,
    passAt1: average(perTask.map((t) => t.passAt1)),
    passAtK: average(perTask.map((t) => t.passAtK)),
    passHatK: average(perTask.map((t) => t.passHatK)),
  };
}

export function meanOf(values: readonly (number | null)[]): MetricMean {
  const present = values.filter((v): v is number => v !== null);
  return { mean: present.length > 0 ? present.reduce((a, b) => a + b, 0) / present.length : null, n: present.length };
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
