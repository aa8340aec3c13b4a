import type { RunRecord, Store } from '../../store/store.js';
import { openRunSource, storedRunConfig, type RunSourceOptions } from '../../trajectory/run-source.js';
import { behaviourCall } from './behaviour-call.js';
import type { RunBehaviour } from './behaviour-summary.js';
import { listedPlanSteps } from './plan-steps.js';
import { rolloutBehaviour, type RolloutBehaviour } from './rollout-behaviour.js';

/** Rollout statuses after which nothing of a rollout changes. */
const ENDED = new Set(['finished', 'error', 'abandoned']);

/**
 * Every current rollout of a run with its behaviour, read from the store (and the tasks' plan steps, where
 * their folders are). With `ended`, the behaviour of rollouts that have ended is kept there and read from
 * there again: a reader that comes back (the inspector) reads each ended rollout's calls once.
 */
export async function readRunBehaviour(store: Store, run: RunRecord, ended?: Map<string, RolloutBehaviour>): Promise<RunBehaviour> {
  const config = storedRunConfig(run.config);
  const plans = listedPlanSteps(config.taskPaths);
  const rollouts = [];
  for (const r of await store.currentRollouts(run.id)) {
    const known = ended?.get(r.id);
    if (known) {
      rollouts.push(known);
      continue;
    }
    const calls = (await store.listCalls(r.id)).map(behaviourCall);
    const behaviour = rolloutBehaviour({ ...r, calls, planSteps: plans.get(r.taskId) });
    if (ENDED.has(r.status)) ended?.set(r.id, behaviour);
    rollouts.push(behaviour);
  }
  return {
    runId: run.id,
    harness: config.harness || (rollouts[0]?.harness ?? ''),
    upstream: config.upstream,
    simulated: config.simulated,
    k: config.k,
    passThreshold: config.passThreshold,
    rollouts,
  };
}

/** The behaviour of a run in an output folder (or store file): the latest run unless `runId` names one. A live run reads as a snapshot. */
export async function runBehaviour(dir: string, options: Pick<RunSourceOptions, 'runId'> = {}): Promise<RunBehaviour> {
  const source = await openRunSource(dir, { ...options, allowRunning: true });
  try {
    return await readRunBehaviour(source.store, source.run);
  } finally {
    await source.store.close();
  }
}
