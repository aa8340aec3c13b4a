import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { STORE_FILE, Store } from '../store/store.js';
import { UserError } from '../util/errors.js';

/**
 * The output folder whose store holds a rollout: `dir` when given (or the folder above it, for a run's
 * own folder), else the first of ., ./runs and ./runs/* that has it.
 */
export async function locateRollout(rolloutId: string, dir?: string): Promise<string> {
  const candidates = dir ? [path.resolve(dir), path.dirname(path.resolve(dir))] : defaultFolders();
  const searched: string[] = [];
  for (const folder of candidates) {
    const file = path.join(folder, STORE_FILE);
    if (!existsSync(file)) continue;
    searched.push(folder);
    const store = await Store.open(file);
    try {
      if (await store.getRollout(rolloutId)) return folder;
    } finally {
      await store.close();
    }
    if (dir) break;
  }
  if (dir && searched.length === 0)
    throw new UserError(`${dir} has no ${STORE_FILE}: it is not an OpenForge run folder`, 'pass the `output` folder of a run.yaml');
  throw new UserError(
    `no rollout "${rolloutId}" in ${searched.length ? searched.join(', ') : 'any run folder here (., ./runs, ./runs/*)'}`,
    "pass --dir <the run's output folder>; `openforge inspect <run-dir>` lists its rollouts",
  );
}

function defaultFolders(): string[] {
  const cwd = process.cwd();
  const runs = path.join(cwd, 'runs');
  const nested = existsSync(runs)
    ? readdirSync(runs, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => path.join(runs, e.name))
    : [];
  return [cwd, runs, ...nested];
}
