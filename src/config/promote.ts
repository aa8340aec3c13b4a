import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, parseDocument, type Document } from 'yaml';
import { UserError } from '../util/errors.js';
import { resolveRunConfig, type LoadedRunConfig } from './run.js';

export interface PromoteOptions {
  registry?: string;
  namespace?: string;
  context?: string;
  kubeconfig?: string;
  proxyAddress?: string;
}

export interface Promotion {
  /** The cluster config's new text (comments of the local file are kept). */
  text: string;
  /** One line per changed key against the cluster file as it was (or the local file, for a new one): `+ key: value`, `~ key: old → new`, `- key`. */
  changes: string[];
  /** The promoted config, validated. */
  loaded: LoadedRunConfig;
}

/** Keys holding paths relative to the run.yaml they are written in. */
const PATH_KEYS: (string | number)[][] = [['output'], ['custom_harness', 'install_dir']];

/**
 * The cluster config of a local run.yaml: the same run with `backend: kubernetes`. The cluster file's own
 * kubernetes section (if it exists already) is kept and updated by the options, so promoting again after
 * a local change carries the change over without losing cluster settings. Paths are rewritten relative to
 * the new file. The result is validated before anything is written.
 */
export function promote(localFile: string, clusterFile: string, options: PromoteOptions): Promotion {
  const local = path.resolve(localFile);
  const target = path.resolve(clusterFile);
  if (!existsSync(local)) throw new UserError(`run config ${local} does not exist`);
  if (local === target) throw new UserError('--to names the local file itself', 'write the cluster config to its own file, e.g. --to cluster.yaml');
  const doc = parseDocument(readFileSync(local, 'utf8'));
  if (doc.errors.length) throw new UserError(`${local}: invalid YAML: ${doc.errors[0]!.message}`);
  if (!isMap(doc.contents)) throw new UserError(`${local}: expected a mapping of keys`);
  const previous = existsSync(target) ? parseDocument(readFileSync(target, 'utf8')) : undefined;
  const before = (previous ?? doc).toJS() as Record<string, unknown>;

  rebasePaths(doc, path.dirname(local), path.dirname(target));
  const kubernetes = ((previous?.toJS() as Record<string, unknown> | undefined)?.kubernetes ?? doc.toJS().kubernetes ?? {}) as Record<string, unknown>;
  doc.set('backend', 'kubernetes');
  doc.set('kubernetes', doc.createNode(kubernetes));
  const set = (keys: string[], value: string | undefined) => value !== undefined && doc.setIn(['kubernetes', ...keys], value);
  set(['images', 'registry'], options.registry);
  set(['namespace'], options.namespace);
  set(['context'], options.context);
  set(['kubeconfig'], options.kubeconfig && path.relative(path.dirname(target), path.resolve(options.kubeconfig)));
  set(['proxy', 'address'], options.proxyAddress);

  const after = doc.toJS() as Record<string, unknown>;
  const k = after.kubernetes as { images?: { registry?: string }; proxy?: { address?: string } };
  if (!k.images?.registry)
    throw new UserError(
      `${target}: kubernetes.images.registry is not set`,
      'pass --registry R: the registry `openforge images push --registry R` pushes the images to',
    );
  if (!k.proxy?.address)
    throw new UserError(
      `${target}: kubernetes.proxy.address is not set`,
      "pass --proxy-address IP:PORT: an address of this machine the cluster's pods can reach",
    );
  const loaded = resolveRunConfig(after, target); // names any key the cluster config gets wrong, before it is written
  return { text: doc.toString(), changes: diff(flatten(before), flatten(after)), loaded };
}

function rebasePaths(doc: Document, from: string, to: string): void {
  const rebase = (p: string) => (path.isAbsolute(p) ? p : path.relative(to, path.resolve(from, p)) || '.');
  const tasks = doc.get('tasks');
  const raw = doc.toJS().tasks as unknown;
  if (typeof raw === 'string') doc.set('tasks', rebase(raw));
  else if (Array.isArray(raw) && tasks !== undefined)
    doc.set(
      'tasks',
      raw.map((t: string) => rebase(t)),
    );
  if (doc.get('output') === undefined) doc.set('output', rebase('runs'));
  for (const keys of PATH_KEYS) {
    const value = doc.getIn(keys);
    if (typeof value === 'string') doc.setIn(keys, rebase(value));
  }
}

function flatten(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) for (const [kk, vv] of flatten(v, prefix ? `${prefix}.${k}` : k)) out.set(kk, vv);
  } else if (prefix) out.set(prefix, JSON.stringify(value));
  return out;
}

function diff(before: Map<string, string>, after: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [k, v] of after) {
    if (!before.has(k)) lines.push(`+ ${k}: ${v}`);
    else if (before.get(k) !== v) lines.push(`~ ${k}: ${before.get(k)} → ${v}`);
  }
  for (const k of before.keys()) if (!after.has(k)) lines.push(`- ${k}`);
  return lines;
}
