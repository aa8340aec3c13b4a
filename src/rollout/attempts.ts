import { runRollout, type RolloutDeps, type RolloutOutcome } from './rollout.js';
import type { Task } from '../config/task.js';

/**
 * Runs one (task, sample) slot, retrying only infrastructure failures that happened before the agent
 * started (an agent that ran is never run twice). Each attempt is its own rollout record.
 */
export async function runSlot(
  deps: RolloutDeps,
  slot: { task: Task; sampleIndex: number; firstAttempt: number },
  retries: number,
  onRetry?: (outcome: RolloutOutcome) => void,
): Promise<{ rolloutId: string; outcome: RolloutOutcome }> {
  for (let attempt = slot.firstAttempt; ; attempt++) {
    const rolloutId = `${deps.runId}.${slot.task.id}.${slot.sampleIndex}.${attempt}`;
    await deps.store.addRollout({ id: rolloutId, runId: deps.runId, taskId: slot.task.id, sampleIndex: slot.sampleIndex, attempt, harness: deps.harness.name, parent: deps.parent });
    const outcome = await runRollout(deps, { task: slot.task, sampleIndex: slot.sampleIndex, attempt, rolloutId });
    const retry = outcome.errorType === 'infrastructure' && outcome.beforeAgent && attempt - slot.firstAttempt < retries && !deps.signal.aborted;
    if (!retry) return { rolloutId, outcome };
    onRetry?.(outcome);
  }
}
