import { resolveRunConfig, type LoadedRunConfig } from '../config/run.js';
import type { Task } from '../config/task.js';
import type { RolloutRecord, Store } from '../store/store.js';
import { UserError, errorMessage } from '../util/errors.js';
import { loadAllTasks } from './run.js';

/** A recorded rollout and what it takes to run its episode again: its run's config, narrowed to its one task. */
export interface Episode {
  rollout: RolloutRecord;
  /** The original run's config with tasks = [this task], one rollout, output = the same folder (so replays share the store). */
  loaded: LoadedRunConfig;
  task: Task;
  /** The original run's model upstream. */
  upstream: string;
}

export async function loadEpisode(store: Store, outputDir: string, rolloutId: string): Promise<Episode> {
  const rollout = await store.getRollout(rolloutId);
  if (!rollout)
    throw new UserError(
      `no rollout "${rolloutId}" in ${store.file}`,
      'rollout ids look like run-<date>-<hex>.<task>.<sample>.<attempt>; `openforge inspect <run-dir>` lists them',
    );
  const run = await store.getRun(rollout.runId);
  const stored = run?.config as { config?: unknown; file?: unknown } | undefined;
  if (!stored?.config || typeof stored.file !== 'string') throw new UserError(`run ${rollout.runId} in ${store.file} has no stored run config to re-run from`);
  let original: LoadedRunConfig;
  try {
    original = resolveRunConfig(stored.config, stored.file);
  } catch (err) {
    throw new UserError(`the config of run ${rollout.runId} no longer validates: ${errorMessage(err)}`);
  }
  const task = loadAllTasks(original.taskPaths).find((t) => t.id === rollout.taskId);
  if (!task)
    throw new UserError(
      `task ${rollout.taskId} of rollout ${rolloutId} is no longer in ${original.taskPaths.join(', ')}`,
      'restore the task folder to re-run its episode',
    );
  const config = { ...original.config, tasks: task.dir, rollouts_per_task: 1, concurrency: 1, model: { ...original.config.model } };
  return { rollout, task, upstream: original.config.model.upstream, loaded: { config, taskPaths: [task.dir], outputDir, file: original.file } };
}
