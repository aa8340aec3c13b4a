import { groupBy, mean } from '../grouping.js';
import { passRates } from '../run-summary.js';
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
  const perTask = [...groupBy(rollouts, (r) => r.taskId).values()].map((rs) =>
    passRates(rs.length, rs.filter((r) => r.reward !== null && r.reward >= passThreshold).length, k),
  );
  return {
    mean: meanOf(rollouts.map((r) => r.reward)).mean,
    passAt1: mean(perTask.map((t) => t.passAt1)) ?? 0,
    passAtK: mean(perTask.map((t) => t.passAtK)) ?? 0,
    passHatK: mean(perTask.map((t) => t.passHatK)) ?? 0,
  };
}

/** The mean of the values that are there, and how many those are. */
export function meanOf(values: readonly (number | null)[]): MetricMean {
  const present = values.filter((v): v is number => v !== null);
  return { mean: mean(present), n: present.length };
}
