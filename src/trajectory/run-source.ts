import { locateStore } from '../store/store-location.js';
import { liveLockHolder } from '../store/store-lock.js';
import { Store, type RolloutRecord, type RunRecord } from '../store/store.js';
import { UserError, errorMessage } from '../util/errors.js';

export interface RunSource {
  store: Store;
  /** The output folder holding the store. */
  dir: string;
  run: RunRecord;
  /** The latest attempt of every (task, sample) slot. */
  rollouts: RolloutRecord[];
  simulated: boolean;
  /** From the run config: rollouts per task (k of pass@k) and the reward that counts as a pass. */
  k: number;
  passThreshold: number;
  harness: string;
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
    const config = runConfig(run.config);
    return {
      store,
      dir: located.dir,
      run,
      rollouts: await store.currentRollouts(run.id),
      simulated: config.upstream?.startsWith('sim:') ?? false,
      k: config.k ?? 1,
      passThreshold: config.passThreshold ?? 1,
      harness: config.harness ?? '',
      interrupted: run.status === 'running' && !lockHolder,
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** What the trajectory tools need from the stored run config (`{hash, config, file}` as `executeRun` writes it). */
function runConfig(stored: unknown): { upstream?: string; k?: number; passThreshold?: number; harness?: string } {
  const config = (stored as { config?: Record<string, unknown> } | null)?.config;
  const model = config?.model as { upstream?: unknown } | undefined;
  return {
    upstream: typeof model?.upstream === 'string' ? model.upstream : undefined,
    k: typeof config?.rollouts_per_task === 'number' ? config.rollouts_per_task : undefined,
    passThreshold: typeof config?.pass_threshold === 'number' ? config.pass_threshold : undefined,
    harness: typeof config?.harness === 'string' ? config.harness : undefined,
  };
}
