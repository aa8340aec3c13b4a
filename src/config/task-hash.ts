import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Task } from './task.js';

/**
 * A hash of everything a task is made of (task.toml, instruction, environment, tests, solution), links
 * followed: two runs of the same config resume each other only when every task is the same to the byte,
 * not merely named the same.
 */
export function taskContentHash(task: Task): string {
  const hash = createHash('sha256');
  const seen = new Set<string>();
  const walk = (dir: string, rel: string): void => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stat = statSync(full, { throwIfNoEntry: false });
      if (!stat) continue; // a dangling link
      const relPath = path.posix.join(rel, name);
      if (stat.isDirectory()) walk(full, relPath);
      else if (stat.isFile()) hash.update(`${relPath}\0${stat.mode & 0o111 ? 'x' : '-'}\0${stat.size}\0`).update(readFileSync(full));
    }
    seen.delete(real);
  };
  walk(task.dir, '');
  return hash.digest('hex');
}
