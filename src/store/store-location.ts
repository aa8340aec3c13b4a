import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { STORE_FILE } from './store.js';

export interface StoreLocation {
  /** The store file. */
  file: string;
  /** The folder holding it, where runs keep their artifacts. */
  dir: string;
  /** When `dir` was given as a run's own folder: its name, the run id. */
  runId?: string;
}

/**
 * Where the store of what a user names lies: a run output folder (holding openforge.db), a run's
 * own folder inside one (its name is the run id), or a store file itself (`openforge proxy --db`).
 */
export function locateStore(given: string): StoreLocation {
  const resolved = path.resolve(given);
  if (!existsSync(resolved)) throw new UserError(`run folder ${given} does not exist`);
  if (statSync(resolved).isFile()) return { file: resolved, dir: path.dirname(resolved) };
  const file = path.join(resolved, STORE_FILE);
  if (existsSync(file)) return { file, dir: resolved };
  const parent = path.dirname(resolved);
  if (existsSync(path.join(parent, STORE_FILE))) return { file: path.join(parent, STORE_FILE), dir: parent, runId: path.basename(resolved) };
  throw new UserError(`${given} has no ${STORE_FILE}: it is not an OpenForge run folder`, 'pass the `output` folder of a run.yaml, e.g. runs/claw-basic, or a store file');
}
