import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BehaviourCall } from '../../src/analytics/behaviour/behaviour-call.js';
import type { Store } from '../../src/store/store.js';

/**
 * Recorded calls of real harnesses on the behaviour-probe task (test/fixtures/behaviour-probe), written by
 * scripts/fixtures/record-harness-calls.mjs: every call as the store returned it, long strings (system prompts,
 * tool descriptions) cut, token ids kept as counts.
 */
export const RECORDED_HARNESSES = ['forge-agent', 'claude-code', 'codex', 'qwen-code', 'openclaw', 'opencode'] as const;
export const PROBE_TASK = path.resolve('test/fixtures/behaviour-probe/write-and-check');

export interface HarnessCallsFixture {
  harness: string;
  task: string;
  reward: number;
  rewardDetails: unknown;
  errorType: string | null;
  phases: Record<string, number>;
  startedAt: number;
  events: { ts: number; kind: string; message: string }[];
  calls: (BehaviourCall & { model: string; stream: boolean; error: string | null })[];
}

export function harnessCalls(harness: string): HarnessCallsFixture {
  return JSON.parse(readFileSync(path.resolve('test/fixtures/harness-calls', `${harness}.json`), 'utf8')) as HarnessCallsFixture;
}

/** A rollout of a stored run: a recorded harness episode (its calls), or one that made no call. */
export interface StoredRollout {
  taskId: string;
  reward: number;
  rewardDetails?: unknown;
  /** The harness whose recorded probe episode the rollout's calls are; none: the rollout made no model call. */
  episode?: string;
}

/**
 * Writes a run into a real SQLite store the way a run leaves it: its config, its rollouts with rewards and
 * phases, and for each the calls of a recorded harness episode (without token ids, so tokens come from each
 * answer's usage). Returns the run id.
 */
export async function storeRun(
  store: Store,
  run: { runId: string; harness: string; upstream: string; k: number; taskPaths?: string[]; rollouts: StoredRollout[] },
): Promise<string> {
  await store.createRun(run.runId, {
    hash: run.runId,
    config: { harness: run.harness, model: { upstream: run.upstream }, rollouts_per_task: run.k, pass_threshold: 1, tasks: run.taskPaths ?? [] },
    file: path.join(path.sep, 'run.yaml'),
  });
  const samples = new Map<string, number>();
  for (const r of run.rollouts) {
    const sampleIndex = samples.get(r.taskId) ?? 0;
    samples.set(r.taskId, sampleIndex + 1);
    const id = `${run.runId}.${r.taskId}.${sampleIndex}.1`;
    const episode = r.episode ? harnessCalls(r.episode) : undefined;
    await store.addRollout({ id, runId: run.runId, taskId: r.taskId, sampleIndex, attempt: 1, harness: run.harness });
    for (const c of episode?.calls ?? []) {
      await store.recordCall({
        ...c,
        rolloutId: id,
        promptTokenIds: null,
        completionTokenIds: null,
        logprobs: null,
        finishReason: null,
        upstream: run.upstream,
        ttfbMs: null,
        missingTokenIds: false,
      });
    }
    await store.updateRollout(id, {
      status: 'finished',
      reward: r.reward,
      rewardDetails: r.rewardDetails ?? episode?.rewardDetails ?? null,
      startedAt: episode?.startedAt ?? 0,
      phases: episode?.phases ?? { agent: 500 },
    });
  }
  await store.flush();
  await store.setRunStatus(run.runId, 'finished');
  return run.runId;
}
