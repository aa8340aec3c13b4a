import { setTimeout as sleep } from 'node:timers/promises';
import { runRollout, type RolloutDeps, type RolloutOutcome } from './rollout.js';
import type { Task } from '../config/task.js';
import { BackendUnreachableError, DEFAULT_BACKEND_WAIT_SEC } from '../sandbox/backend-unreachable.js';
import { errorMessage } from '../util/errors.js';

/** Retries of a rollout that failed at the upstream, and how long each waits for it, when run.yaml's `retries` does not say. */
export const DEFAULT_UPSTREAM_RETRIES = 2;
export const DEFAULT_UPSTREAM_WAIT_SEC = 120;

/** Before the n-th retry (1-based): a failure that came from an engine going down tends to repeat for a moment. */
export const retryBackoffMs = (n: number) => Math.min(1000 * 2 ** (n - 1), 10_000);

/**
 * Runs one (task, sample) slot, retrying infrastructure failures that happened before the agent started
 * (an agent that ran is never run twice for them) and rollouts that failed at the upstream (whose episode
 * trains nothing), the latter once the upstream serves again. Each attempt is its own rollout record. A retry first
 * backs off and waits for the backend to answer; one that cannot start (the run stopped, or the backend
 * stayed away: `BackendUnreachableError`, rethrown) is recorded as cancelled, so a resumed run gives it.
 */
export async function runSlot(
  deps: RolloutDeps,
  slot: { task: Task; sampleIndex: number; firstAttempt: number },
  retries: number,
  onRetry?: (outcome: RolloutOutcome) => void,
): Promise<{ rolloutId: string; outcome: RolloutOutcome }> {
  let upstreamRetriesUsed = 0;
  for (let attempt = slot.firstAttempt; ; attempt++) {
    const rolloutId = `${deps.runId}.${slot.task.id}.${slot.sampleIndex}.${attempt}`;
    await deps.store.addRollout({
      id: rolloutId,
      runId: deps.runId,
      taskId: slot.task.id,
      sampleIndex: slot.sampleIndex,
      attempt,
      harness: deps.harness.name,
      parent: deps.parent,
    });
    const outcome = await runRollout(deps, { task: slot.task, sampleIndex: slot.sampleIndex, attempt, rolloutId });
    if (outcome.errorType === 'upstream_error') {
      // The agent ran, but against an outage: nothing of it trains, so it runs again once the upstream serves.
      const upstreamRetries = deps.config.retries.upstream_error ?? DEFAULT_UPSTREAM_RETRIES;
      if (upstreamRetriesUsed >= upstreamRetries || deps.signal.aborted || !deps.waitForUpstream) return { rolloutId, outcome };
      upstreamRetriesUsed++;
      onRetry?.(outcome);
      const waitSec = deps.config.retries.upstream_wait_sec ?? DEFAULT_UPSTREAM_WAIT_SEC;
      if (!(await deps.waitForUpstream(waitSec * 1000, deps.signal))) return { rolloutId, outcome };
      continue;
    }
    const retry =
      outcome.errorType === 'infrastructure' && outcome.beforeAgent && attempt - slot.firstAttempt - upstreamRetriesUsed < retries && !deps.signal.aborted;
    if (!retry) return { rolloutId, outcome };
    onRetry?.(outcome);
    try {
      await sleep(retryBackoffMs(attempt - slot.firstAttempt - upstreamRetriesUsed + 1), undefined, { signal: deps.signal });
      const waitSec = deps.config.retries.backend_wait_sec ?? DEFAULT_BACKEND_WAIT_SEC;
      await deps.backend.waitUntilReachable?.(waitSec * 1000, deps.signal);
    } catch (err) {
      const next = `${deps.runId}.${slot.task.id}.${slot.sampleIndex}.${attempt + 1}`;
      const message = `the retry did not start: ${err instanceof BackendUnreachableError ? err.message : 'the run was interrupted'}`;
      await deps.store.addRollout({
        id: next,
        runId: deps.runId,
        taskId: slot.task.id,
        sampleIndex: slot.sampleIndex,
        attempt: attempt + 1,
        harness: deps.harness.name,
        parent: deps.parent,
      });
      await deps.store.updateRollout(next, { status: 'error', errorType: 'cancelled', errorMessage: message, finishedAt: Date.now() });
      if (err instanceof BackendUnreachableError) throw err;
      if (!deps.signal.aborted) throw new Error(`waiting to retry ${slot.task.id}#${slot.sampleIndex} failed: ${errorMessage(err)}`, { cause: err });
      return { rolloutId: next, outcome: { reward: null, errorType: 'cancelled', errorMessage: message, beforeAgent: true } };
    }
  }
}
