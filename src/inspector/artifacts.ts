import { closeSync, existsSync, openSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ArtifactFile {
  /** Relative to the rollout's artifacts folder, with forward slashes. */
  path: string;
  size: number;
}

const MAX_FILES = 500;
/** Larger files are shown cut: the inspector is for reading, not for downloading gigabytes. */
export const MAX_SHOWN_BYTES = 512 * 1024;

/** Every file under the artifacts folder (none when it does not exist: a rollout that never started). */
export function listArtifacts(dir: string): ArtifactFile[] {
  if (!existsSync(dir)) return [];
  const out: ArtifactFile[] = [];
  const walk = (sub: string) => {
    for (const e of readdirSync(path.join(dir, sub), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_FILES) return;
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.isFile()) out.push({ path: rel, size: statSync(path.join(dir, rel)).size });
    }
  };
  walk('');
  return out;
}

/**
 * One artifact's text, at most MAX_SHOWN_BYTES of it; undefined when the path is not a file inside
 * the folder (no `..` escapes, no symlinks out).
 */
export function readArtifact(dir: string, rel: string): { text: string; truncated: boolean; size: number } | undefined {
  if (!existsSync(dir)) return undefined;
  const root = realpathSync(dir);
  const asked = path.resolve(root, rel);
  if (!asked.startsWith(root + path.sep) || !existsSync(asked)) return undefined;
  const file = realpathSync(asked);
  if (!file.startsWith(root + path.sep)) return undefined;
  const stat = statSync(file);
  if (!stat.isFile()) return undefined;
  const length = Math.min(stat.size, MAX_SHOWN_BYTES);
  const buf = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buf, 0, length, 0);
  } finally {
    closeSync(fd);
  }
  return { text: buf.toString('utf8'), truncated: stat.size > length, size: stat.size };
}
