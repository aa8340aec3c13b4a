import path from 'node:path';
import { locateStore } from '../store/store-location.js';
import { liveLockHolder } from '../store/store-lock.js';
import { Store, type RolloutRecord, type RunRecord } from '../store/store.js';
import { UserError, errorMessage } from '../util/errors.js';

export interface RunSource extends StoredRunConfig {
  store: Store;
  /** The output folder holding the store. */
  dir: string;
  run: RunRecord;
  /** The latest attempt of every (task, sample) slot. */
  rollouts: RolloutRecord[];
  /** The run is marked running but no live process holds its folder: it was interrupted. */
  interrupted: boolean;
}

export interface RunSourceOptions {
  runId?: string;
  allowRunning?: boolean;
}

/**
 * Opens a run folder for reading its records. `dir` is the run's output folder (the one holding
 * openforge.db), the run's own folder inside it, whose name is the run id, or a store file itself.
 */
export async function openRunSource(dir: string, options: RunSourceOptions = {}): Promise<RunSource> {
  const located = locateStore(dir);
  const runId = options.runId ?? located.runId;
  let store: Store;
  try {
    store = await Store.open(located.file);
  } catch (err) {
    throw new UserError(`${located.file} cannot be opened as an OpenForge store: ${errorMessage(err)}`);
  }
  try {
    const run = runId ? await store.getRun(runId) : await store.latestRun();
    if (!run) {
      const ids = await store.runIds();
      throw new UserError(
        runId ? `run ${runId} is not in ${located.file}` : `${located.file} holds no runs`,
        ids.length > 0 ? `runs there: ${ids.join(', ')}` : 'run `openforge run` with this output folder first',
      );
    }
    const lockHolder = run.status === 'running' ? liveLockHolder(located.file) : undefined;
    if (lockHolder && !options.allowRunning) {
      throw new UserError(
        `run ${run.id} in ${located.dir} is still running (held by ${lockHolder})`,
        'wait for it to finish, or pass --allow-running to read what is recorded so far',
      );
    }
    const config = storedRunConfig(run.config);
    return {
      store,
      dir: located.dir,
      run,
      rollouts: await store.currentRollouts(run.id),
      ...config,
      interrupted: run.status === 'running' && !lockHolder,
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** What readers of a run need from its stored config, defaults filled in. */
export interface StoredRunConfig {
  /** The model upstream (`sim:oracle`, a URL); '' when the config names none. */
  upstream: string;
  simulated: boolean;
  /** Rollouts per task (the k of pass@k). */
  k: number;
  /** The reward that counts as a pass. */
  passThreshold: number;
  harness: string;
  /** The run's task folders, absolute; they may no longer exist where the run is read. */
  taskPaths: string[];
}

/** Reads a run's stored config (`{hash, config, file}` as `executeRun` writes it; a standalone proxy's holds less). */
export function storedRunConfig(stored: unknown): StoredRunConfig {
  const { config, file } = (stored ?? {}) as { config?: Record<string, unknown>; file?: unknown };
  const model = config?.model as { upstream?: unknown } | undefined;
  const upstream = typeof model?.upstream === 'string' ? model.upstream : '';
  const tasks = Array.isArray(config?.tasks) ? config.tasks : [config?.tasks];
  const base = typeof file === 'string' ? path.dirname(file) : undefined;
  return {
    upstream,
    simulated: upstream.startsWith('sim:'),
    k: typeof config?.rollouts_per_task === 'number' ? config.rollouts_per_task : 1,
    passThreshold: typeof config?.pass_threshold === 'number' ? config.pass_threshold : 1,
    harness: typeof config?.harness === 'string' ? config.harness : '',
    taskPaths: base ? tasks.filter((t): t is string => typeof t === 'string').map((t) => path.resolve(base, t)) : [],
  };
}
