import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ownerAlive, ownerLabel } from '../util/process-owner.js';
import { UserError } from '../util/errors.js';
import { STORE_FILE } from './store.js';

/**
 * The lock file next to a store: `.openforge.lock` for a run folder's `openforge.db` (the name
 * earlier versions wrote), `.<name>.lock` for a store file of another name (`openforge proxy --db`).
 */
export function lockFileOf(storeFile: string): string {
  const name = path.basename(storeFile);
  return path.join(path.dirname(storeFile), name === STORE_FILE ? '.openforge.lock' : `.${name}.lock`);
}

/**
 * One writing process per store (an orchestrator's run, a standalone proxy): a lock file naming the
 * owner, stale once that process is gone. Returns the release.
 */
export function acquireStoreLock(storeFile: string): () => void {
  const file = lockFileOf(storeFile);
  const holder = liveLockHolder(storeFile);
  if (holder) {
    throw new UserError(
      `${storeFile} is in use by another openforge process (${holder})`,
      'wait for it to finish, or give this one another output folder (run.yaml) or --db file',
    );
  }
  const me = ownerLabel();
  writeFileSync(file, me);
  return () => {
    if (existsSync(file) && readFileSync(file, 'utf8').trim() === me) rmSync(file);
  };
}

/** The process holding the store's lock, when it still runs. */
export function liveLockHolder(storeFile: string): string | undefined {
  const file = lockFileOf(storeFile);
  if (!existsSync(file)) return undefined;
  const holder = readFileSync(file, 'utf8').trim();
  return ownerAlive(holder) ? holder : undefined;
}
