import path from 'node:path';
import { locateStore } from '../store/store-location.js';
import { STORE_FILE, Store } from '../store/store.js';
import { UserError, errorMessage } from '../util/errors.js';

/** An output folder the inspector reads: its store and where the runs' artifacts lie. */
export interface RunFolder {
  dir: string;
  store: Store;
}

/**
 * Opens the store of a run output folder (the one holding openforge.db), of the folder above a
 * run's own folder, or a store file itself. With `create`, a folder without a store yet gets an
 * empty one (`openforge debug` serves the inspector before its run has written anything).
 */
export async function openRunFolder(dir: string, options: { create?: boolean } = {}): Promise<RunFolder> {
  const { file, dir: folder } = options.create ? { file: path.join(path.resolve(dir), STORE_FILE), dir: path.resolve(dir) } : locateStore(dir);
  try {
    return { dir: folder, store: await Store.open(file) };
  } catch (err) {
    throw new UserError(`${file} cannot be opened as an OpenForge store: ${errorMessage(err)}`);
  }
}

/** The Harbor trial folder of one rollout: agent/, verifier/, result.json. */
export function artifactsDir(folder: string, r: { runId: string; taskId: string; sampleIndex: number; attempt: number }): string {
  return path.join(folder, r.runId, r.taskId, `${r.sampleIndex}-a${r.attempt}`);
}
