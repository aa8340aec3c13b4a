import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * Output written under a temporary name in the target's folder and renamed over the target once
 * complete, so a file with the final name is always a whole export — also after a power cut: the file's
 * bytes reach the disk before the rename, and the rename before `commit` returns.
 */
export class AtomicFile {
  readonly tempPath: string;

  constructor(readonly finalPath: string) {
    this.tempPath = path.join(path.dirname(finalPath), `.${path.basename(finalPath)}.${process.pid}.partial`);
  }

  commit(): void {
    syncPath(this.tempPath);
    renameSync(this.tempPath, this.finalPath);
    syncPath(path.dirname(this.finalPath));
  }

  discard(): void {
    rmSync(this.tempPath, { force: true });
  }
}

/** fsync of a file or a folder (a folder's entries: a rename in it). */
function syncPath(target: string): void {
  const fd = openSync(target, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
