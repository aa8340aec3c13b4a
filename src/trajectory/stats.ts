import { summarize, type RunSummary } from '../analytics/run-summary.js';
import { openRunSource, type RunSourceOptions } from './run-source.js';
import { runSamples } from './run-samples.js';
import { BREAK_REASONS, emptyExclusionCounts, EXCLUSION_REASONS, type BreakReason, type ExclusionCounts } from './types.js';

export interface TokenDistribution {
  mean: number;
  p50: number;
  max: number;
}

export interface TaskRewardStats {
  taskId: string;
  n: number;
  /** How many rollouts got each reward value; `none` counts rollouts without a reward. */
  rewards: Record<string, number>;
  mean: number | null;
  passAt1: number;
  passAtK: number;
  passHatK: number;
}

export interface TrajectoryStats {
  runId: string;
  simulated: boolean;
  interrupted: boolean;
  rollouts: number;
  /** Rollouts the rollout service marked stale (past their `max_staleness`); their samples are counted here all the same. */
  staleRollouts: number;
  calls: number;
  policyCalls: number;
  /** Policy calls appended to a sample another call started. */
  mergedCalls: number;
  /** mergedCalls / policyCalls. */
  mergeRate: number;
  breaks: Record<BreakReason, number>;
  excluded: ExclusionCounts;
  samples: number;
  /** Prompt + response tokens per sample. */
  tokensPerSample: TokenDistribution | null;
  corruptRollouts: { rolloutId: string; seq: number; message: string }[];
  k: number;
  passAt1: number;
  passAtK: number;
  passHatK: number;
  tasks: TaskRewardStats[];
}

/** Merge rate, break causes, exclusions, sample sizes and rewards of one run, computed by building every sample. */
export async function trajectoryStats(dir: string, options: RunSourceOptions = {}): Promise<TrajectoryStats> {
  const source = await openRunSource(dir, options);
  try {
    const breaks = Object.fromEntries(BREAK_REASONS.map((r) => [r, 0])) as Record<BreakReason, number>;
    const excluded = emptyExclusionCounts();
    const sampleTokens: number[] = [];
    const corruptRollouts: TrajectoryStats['corruptRollouts'] = [];
    let calls = 0;
    let policyCalls = 0;
    let mergedCalls = 0;
    for await (const result of runSamples(source, source.rollouts)) {
      if ('corrupt' in result) {
        const { rolloutId, seq, message } = result.corrupt;
        corruptRollouts.push({ rolloutId, seq, message });
        continue;
      }
      calls += result.calls;
      policyCalls += result.stats.policyCalls;
      mergedCalls += result.stats.mergedCalls;
      for (const reason of BREAK_REASONS) breaks[reason] += result.stats.breaks[reason] ?? 0;
      for (const reason of EXCLUSION_REASONS) excluded[reason] += result.stats.excluded[reason];
      for (const s of result.samples) sampleTokens.push(s.prompt_ids.length + s.response_ids.length);
    }
    const summary = summarize(source.rollouts, {
      runId: source.run.id,
      harness: source.harness,
      k: source.k,
      passThreshold: source.passThreshold,
      simulated: source.simulated,
      wallTimeSec: 0,
    });
    return {
      runId: source.run.id,
      simulated: source.simulated,
      interrupted: source.interrupted,
      rollouts: source.rollouts.length,
      staleRollouts: source.rollouts.filter((r) => r.stale).length,
      calls,
      policyCalls,
      mergedCalls,
      mergeRate: policyCalls > 0 ? mergedCalls / policyCalls : 0,
      breaks,
      excluded,
      samples: sampleTokens.length,
      tokensPerSample: distribution(sampleTokens),
      corruptRollouts,
      k: summary.k,
      passAt1: summary.passAt1,
      passAtK: summary.passAtK,
      passHatK: summary.passHatK,
      tasks: taskRewards(summary),
    };
  } finally {
    await source.store.close();
  }
}

function taskRewards(summary: RunSummary): TaskRewardStats[] {
  return summary.tasks.map((t) => {
    const rewards: Record<string, number> = {};
    for (const r of t.rewards) {
      const key = r === null ? 'none' : String(r);
      rewards[key] = (rewards[key] ?? 0) + 1;
    }
    return { taskId: t.taskId, n: t.n, rewards, mean: t.meanReward, passAt1: t.passAt1, passAtK: t.passAtK, passHatK: t.passHatK };
  });
}

function distribution(values: number[]): TokenDistribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { mean: sum / sorted.length, p50: sorted[Math.floor((sorted.length - 1) / 2)] as number, max: sorted[sorted.length - 1] as number };
}
