import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
 * owner, created with O_EXCL so that of two processes starting at once exactly one gets it, and stale once
 * its owner is gone. Returns the release.
 */
export function acquireStoreLock(storeFile: string): () => void {
  const file = lockFileOf(storeFile);
  const me = ownerLabel();
  for (let attempt = 1; ; attempt++) {
    try {
      writeFileSync(file, me, { flag: 'wx' });
      return () => {
        if (existsSync(file) && readFileSync(file, 'utf8').trim() === me) rmSync(file);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(file);
    if (holder !== undefined && ownerAlive(holder)) {
      throw new UserError(
        `${storeFile} is in use by another openforge process (${holder})`,
        'wait for it to finish, or give this one another output folder (run.yaml) or --db file',
      );
    }
    if (attempt >= 3)
      throw new UserError(
        `${storeFile}: its lock ${file} keeps changing hands`,
        'another openforge process is starting on the same store: start one at a time',
      );
    clearStaleLock(file, holder);
  }
}

/**
 * Moves a stale lock aside with an atomic rename, so that only one process clears it; a lock that turns
 * out to have been taken by a live process meanwhile is put back.
 */
function clearStaleLock(file: string, stale: string | undefined): void {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // cleared by another process
    throw err;
  }
  const moved = readHolder(aside);
  rmSync(aside, { force: true });
  if (moved !== stale && moved !== undefined && ownerAlive(moved)) {
    try {
      writeFileSync(file, moved, { flag: 'wx' });
    } catch {
      // a third process took the free lock: it holds it now
    }
  }
}

function readHolder(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The process holding the store's lock, when it still runs. */
export function liveLockHolder(storeFile: string): string | undefined {
  const file = lockFileOf(storeFile);
  if (!existsSync(file)) return undefined;
  const holder = readFileSync(file, 'utf8').trim();
  return ownerAlive(holder) ? holder : undefined;
}
