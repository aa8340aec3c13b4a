import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';

/**
 * The commit a git checkout is at, or undefined when the folder is not the top of a checkout (a plain copy,
 * or a folder inside some other repository) or git is not installed.
 */
export function checkoutCommit(dir: string): string | undefined {
  const git = (...args: string[]) => {
    const res = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return res.status === 0 ? res.stdout.trim() : '';
  };
  const top = git('rev-parse', '--show-toplevel');
  if (!top || realpathSync(top) !== realpathSync(dir)) return undefined;
  const head = git('rev-parse', 'HEAD');
  return /^[0-9a-f]{40}$/.test(head) ? head : undefined;
}
