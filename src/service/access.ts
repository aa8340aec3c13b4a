import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage } from '../util/errors.js';

/** Who may use the rollout service, and what a request may name. */
export interface ServiceAccess {
  /** Every route but /health needs `Authorization: Bearer <token>`. */
  token: string;
  /** A request's `tasks` must lie under one of these folders (real paths). */
  tasksRoots: string[];
  /** A request's `upstream` and `replicas` must each match one of these patterns (`*` is any run of characters). */
  allowUpstream: string[];
}

/** What `--allow-upstream` is when not given: the in-process sim, and servers on this machine. */
export const DEFAULT_ALLOWED_UPSTREAMS = ['sim:*', 'http://127.0.0.1:*', 'http://localhost:*', 'http://[::1]:*'];

const MIN_TOKEN_LENGTH = 16;

/** The token in `file` (its first line), or a new random one. */
export function serviceToken(file: string | undefined): { token: string; generated: boolean } {
  if (file === undefined) return { token: randomBytes(24).toString('base64url'), generated: true };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`--token-file ${file} cannot be read: ${errorMessage(err)}`, 'give a file holding the token on its first line');
  }
  const token = text.split('\n')[0]!.trim();
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new UserError(
      `--token-file ${file}: the token must be at least ${MIN_TOKEN_LENGTH} characters with no spaces`,
      'e.g. `openssl rand -base64 24 > token`',
    );
  }
  return { token, generated: false };
}

/** Each folder of `--tasks-root`, as the real path requests are compared against. */
export function tasksRoots(folders: readonly string[]): string[] {
  return folders.map((folder) => {
    const resolved = path.resolve(folder);
    if (!statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UserError(`--tasks-root ${folder} is not a folder`, 'name a folder that holds task or suite folders');
    }
    return realpathSync(resolved);
  });
}

/** True when `presented` (an Authorization header) carries the token; compared in constant time. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const digest = (text: string) => createHash('sha256').update(text).digest();
  // digests of equal length, so timingSafeEqual never throws and the time does not depend on the presented length
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token));
}

/** Why a request's `tasks` may not be used, or undefined: it must lie under a root (after symbolic links). */
export function tasksProblem(tasks: string, roots: readonly string[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(path.resolve(tasks));
  } catch {
    return undefined; // loading it reports that it does not exist
  }
  if (roots.some((root) => real === root || real.startsWith(root + path.sep))) return undefined;
  const allowed = roots.length
    ? `the task roots (${roots.join(', ')})`
    : 'no task root (the service was started without --tasks-root or a --config naming tasks)';
  return `tasks: ${tasks} lies outside ${allowed}; start openforge serve with --tasks-root <a folder holding it>`;
}

/** Why an upstream may not be used, or undefined: it must match an `--allow-upstream` pattern. */
export function upstreamProblem(field: string, url: string, patterns: readonly string[]): string | undefined {
  if (patterns.some((p) => globMatches(p, url))) return undefined;
  return `${field}: ${url} matches no --allow-upstream pattern (${patterns.join(', ')}); start openforge serve with --allow-upstream '<pattern>', e.g. 'http://10.0.0.*:8000/v1'`;
}

function globMatches(pattern: string, text: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(text);
}
