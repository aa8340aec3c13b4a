import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { STORE_FILE, Store } from '../store/store.js';
import { UserError, errorMessage } from '../util/errors.js';

/** An output folder the inspector reads: its store and where the runs' artifacts lie. */
export interface RunFolder {
  dir: string;
  store: Store;
}

/**
 * Opens the store of a run output folder (the one holding openforge.db), or of the folder above a
 * run's own folder. With `create`, a folder without a store yet gets an empty one (`openforge debug`
 * serves the inspector before its run has written anything).
 */
export async function openRunFolder(dir: string, options: { create?: boolean } = {}): Promise<RunFolder> {
  const resolved = path.resolve(dir);
  let folder = resolved;
  if (!options.create) {
    if (!existsSync(resolved)) throw new UserError(`run folder ${dir} does not exist`, 'pass the `output` folder of a run.yaml (it holds openforge.db)');
    if (!statSync(resolved).isDirectory()) throw new UserError(`${dir} is not a folder`, `pass a run's output folder (the one holding ${STORE_FILE})`);
    if (!existsSync(path.join(resolved, STORE_FILE))) {
      const parent = path.dirname(resolved);
      if (!existsSync(path.join(parent, STORE_FILE))) {
        throw new UserError(`${dir} has no ${STORE_FILE}: it is not an OpenForge run folder`, 'pass the `output` folder of a run.yaml, e.g. runs/claw-basic');
      }
      folder = parent;
    }
  }
  try {
    return { dir: folder, store: await Store.open(path.join(folder, STORE_FILE)) };
  } catch (err) {
    throw new UserError(`${path.join(folder, STORE_FILE)} cannot be opened as an OpenForge store: ${errorMessage(err)}`);
  }
}

/** The Harbor trial folder of one rollout: agent/, verifier/, result.json. */
export function artifactsDir(folder: string, r: { runId: string; taskId: string; sampleIndex: number; attempt: number }): string {
  return path.join(folder, r.runId, r.taskId, `${r.sampleIndex}-a${r.attempt}`);
}
