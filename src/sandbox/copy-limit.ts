import type { CopyLimits } from './types.js';

/** A copy out of a sandbox that reached its limit: it stopped there, and what came before it stays on the host. */
export class CopyLimitError extends Error {
  constructor(
    readonly sandboxPath: string,
    readonly limits: CopyLimits,
    readonly reached: 'bytes' | 'entries',
  ) {
    const limit = reached === 'bytes' ? `${Math.round(limits.maxBytes / 2 ** 20)} MiB` : `${limits.maxEntries} entries`;
    super(`copying ${sandboxPath} out stopped at ${limit} (${limits.setBy})`);
  }
}
