import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
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
  if (statSync(resolved).isFile()) {
    // opening anything else would write a new store's schema into it
    if (!isSqliteFile(resolved))
      throw new UserError(`${given} is not an OpenForge store: not a SQLite database`, "pass the --db file of `openforge proxy`, or a run's output folder");
    return { file: resolved, dir: path.dirname(resolved) };
  }
  const file = path.join(resolved, STORE_FILE);
  if (existsSync(file)) return { file, dir: resolved };
  const parent = path.dirname(resolved);
  if (existsSync(path.join(parent, STORE_FILE))) return { file: path.join(parent, STORE_FILE), dir: parent, runId: path.basename(resolved) };
  throw new UserError(
    `${given} has no ${STORE_FILE}: it is not an OpenForge run folder`,
    'pass the `output` folder of a run.yaml, e.g. runs/claw-basic, or a store file',
  );
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

function isSqliteFile(file: string): boolean {
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}
