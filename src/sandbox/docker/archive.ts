import { createWriteStream, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { UserError } from '../../util/errors.js';
import { CopyLimitError } from '../copy-limit.js';
import type { CopyLimits, FileToWrite } from '../types.js';

/** Packs files (paths relative to the archive root) into a tar stream for Docker's archive API. */
export function packFiles(files: { name: string; content: string | Buffer; mode?: number }[]): Readable {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const f of files) {
    // Parent folders as explicit entries, so they exist with sane modes.
    const parts = f.name.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dir && !dirs.has(dir)) {
        dirs.add(dir);
        pack.entry({ name: dir, type: 'directory', mode: 0o755 });
      }
    }
    pack.entry({ name: f.name, mode: f.mode ?? 0o644 }, typeof f.content === 'string' ? Buffer.from(f.content) : f.content);
  }
  pack.finalize();
  // tar-stream's Pack is a streamx Readable, which Node streams and dockerode accept.
  return pack as unknown as Readable;
}

export interface ReadTreeOptions {
  /**
   * Follow symbolic links whose target (resolved) lies inside this folder — a task suite's shared files,
   * e.g. `environment/site/kit -> ../../../_site-kit` — and refuse, with an error naming the link, any that
   * lead outside it. Without it, symbolic links are skipped.
   */
  symlinksWithin?: string;
}

/** Every regular file below a host folder, named relative to it, with its mode kept. */
export function readTree(root: string, prefix = '', options: ReadTreeOptions = {}): { name: string; content: Buffer; mode: number }[] {
  const within = options.symlinksWithin === undefined ? undefined : realpathSync(options.symlinksWithin);
  return walk(root, prefix, within, new Set([realpathSync(root)]));
}

function walk(dir: string, prefix: string, within: string | undefined, ancestors: Set<string>): { name: string; content: Buffer; mode: number }[] {
  const out: { name: string; content: Buffer; mode: number }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      if (within === undefined) continue;
      const target = linkTarget(full, within);
      const st = statSync(target);
      isDir = st.isDirectory();
      isFile = st.isFile();
      if (isDir && ancestors.has(target))
        throw new UserError(`${full} is a symbolic link to ${target}, a folder that contains it (a loop)`, 'link to a sibling folder instead');
    }
    if (isDir) {
      const real = realpathSync(full);
      out.push(...walk(full, name, within, new Set([...ancestors, real])));
    } else if (isFile) out.push({ name, content: readFileSync(full), mode: statSync(full).mode & 0o777 });
  }
  return out;
}

/** The resolved target of a symbolic link that must stay inside `within`. */
function linkTarget(link: string, within: string): string {
  let target: string;
  try {
    target = realpathSync(link);
  } catch {
    throw new UserError(`${link} is a symbolic link to ${readlinkSync(link)}, which does not exist`, 'fix or remove the link');
  }
  if (target !== within && !target.startsWith(within + path.sep)) {
    throw new UserError(
      `${link} is a symbolic link to ${target}, outside ${within}`,
      `links in a task may only point inside its suite folder (${within}); move the shared files there or copy them in`,
    );
  }
  return target;
}

/** Absolute sandbox paths become archive entries relative to `/`. */
export function packAbsolute(files: FileToWrite[]): Readable {
  return packFiles(files.map((f) => ({ name: f.path.replace(/^\/+/, ''), content: f.content, mode: f.mode })));
}

/** Unpacks a tar stream into a host folder, refusing entries that would escape it. */
export async function extractTo(stream: NodeJS.ReadableStream, hostDir: string, limits?: { copied: string; limits: CopyLimits }): Promise<void> {
  mkdirSync(hostDir, { recursive: true });
  const extract = tar.extract();
  const root = path.resolve(hostDir);
  let entries = 0;
  let bytes = 0;
  extract.on('entry', (header, body, next) => {
    if (limits) {
      entries += 1;
      bytes += header.size ?? 0;
      const reached = entries > limits.limits.maxEntries ? 'entries' : bytes > limits.limits.maxBytes ? 'bytes' : undefined;
      if (reached) {
        // the entry's stream ends with the archive's; its error is the archive's, reported once by the pipeline
        body.on('error', () => undefined);
        extract.destroy(new CopyLimitError(limits.copied, limits.limits, reached));
        return;
      }
    }
    const target = path.resolve(root, header.name);
    if (target !== root && !target.startsWith(root + path.sep)) {
      body.resume();
      return next();
    }
    if (header.type === 'directory') {
      mkdirSync(target, { recursive: true });
      body.resume();
      body.on('end', next);
    } else if (header.type === 'file') {
      mkdirSync(path.dirname(target), { recursive: true });
      pipeline(body, createWriteStream(target, { mode: (header.mode ?? 0o644) & 0o777 })).then(() => next(), next);
    } else {
      body.resume();
      body.on('end', next);
    }
  });
  await pipeline(stream, extract);
}
