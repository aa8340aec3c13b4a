import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isTaskDir, loadTask } from '../../config/task.js';
import { UserError, errorMessage } from '../../util/errors.js';
import type { ImportOptions, ImportReport, TaskImporter } from '../types.js';
import { checkoutCommit } from './git-head.js';

/** Harbor's registry.json: a list of datasets, each a list of tasks in git repositories (REFERENCE: Harbor docs, datasets). */
const RegistrySchema = z.array(
  z.looseObject({
    name: z.string(),
    version: z.string(),
    description: z.string().optional(),
    tasks: z.array(z.looseObject({ name: z.string(), git_url: z.string(), git_commit_id: z.string().optional(), path: z.string() })),
  }),
);
type Dataset = z.infer<typeof RegistrySchema>[number];

/** Written beside the tasks: where each came from, so a run's tasks name their source exactly. */
export const MANIFEST = 'harbor-dataset.json';

/**
 * A Harbor dataset brought as it is: each task folder (task.toml, instruction.md, environment/, tests/,
 * solution/) copied unchanged from a local checkout, and the dataset's git URLs and commits pinned in
 * harbor-dataset.json. The source is a registry.json (with `--dataset name@version` and `--checkout DIR`, a
 * clone of the dataset's repository) or a dataset folder of task folders.
 */
export const harborImporter: TaskImporter = {
  name: 'harbor',
  description: 'a Harbor dataset (Terminal-Bench 2, …) from a registry.json and a local checkout, or a folder of Harbor tasks',
  source: 'a Harbor registry.json (with --dataset name@version and --checkout DIR) or a dataset folder',
  takes: ['dataset', 'checkout'],
  async import(source: string, outDir: string, options: ImportOptions = {}): Promise<ImportReport> {
    const abs = path.resolve(source);
    if (!existsSync(abs)) throw new UserError(`${abs} does not exist`, 'pass a Harbor registry.json or a folder of Harbor task folders');
    if (statSync(abs).isDirectory()) return importFolder(abs, path.resolve(outDir));
    return importRegistry(abs, path.resolve(outDir), options);
  },
};

function importRegistry(file: string, outDir: string, options: ImportOptions): ImportReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`${file}: not JSON: ${errorMessage(err)}`, "pass Harbor's registry.json");
  }
  const parsed = RegistrySchema.safeParse(raw);
  if (!parsed.success)
    throw new UserError(`${file}: not a Harbor registry (a list of {name, version, tasks: [{name, git_url, path}]}): ${parsed.error.issues[0]?.message}`);
  const dataset = pickDataset(parsed.data, options.dataset, file);
  if (!options.checkout) {
    throw new UserError(
      `${dataset.name}@${dataset.version} lives in ${[...new Set(dataset.tasks.map((t) => t.git_url))].join(', ')}, which this machine reads from a local checkout`,
      'clone it (at the pinned commit) and pass --checkout DIR',
    );
  }
  const checkout = path.resolve(options.checkout);
  if (!existsSync(checkout)) throw new UserError(`--checkout ${checkout} does not exist`);
  const head = checkoutCommit(checkout);
  const report: ImportReport = { written: [], skipped: [] };
  const pinned: Record<string, unknown>[] = [];
  mkdirSync(outDir, { recursive: true });
  for (const t of dataset.tasks) {
    const from = path.join(checkout, t.path);
    if (!isTaskDir(from)) {
      report.skipped.push({ id: t.name, cause: `not in the checkout: ${from} holds no task.toml and instruction.md (${t.git_url} path ${t.path})` });
      continue;
    }
    if (t.git_commit_id && head && head !== t.git_commit_id) {
      report.skipped.push({ id: t.name, cause: `the checkout is at ${head}, the dataset pins ${t.git_commit_id}: check that commit out` });
      continue;
    }
    const written = copyTask(from, path.join(outDir, t.name), report);
    if (!written) continue;
    pinned.push({ name: t.name, git_url: t.git_url, git_commit_id: t.git_commit_id ?? null, path: t.path, checkout_verified: head !== undefined });
  }
  writeFileSync(
    path.join(outDir, MANIFEST),
    JSON.stringify({ dataset: dataset.name, version: dataset.version, registry: file, tasks: pinned }, null, 2) + '\n',
  );
  return report;
}

function importFolder(dir: string, outDir: string): ImportReport {
  const report: ImportReport = { written: [], skipped: [] };
  const names = readdirSync(dir)
    .filter((n) => statSync(path.join(dir, n)).isDirectory())
    .sort();
  mkdirSync(outDir, { recursive: true });
  for (const name of names) {
    const from = path.join(dir, name);
    if (!isTaskDir(from)) continue;
    copyTask(from, path.join(outDir, name), report);
  }
  if (report.written.length === 0 && report.skipped.length === 0) throw new UserError(`${dir} holds no Harbor task folder (task.toml and instruction.md)`);
  writeFileSync(
    path.join(outDir, MANIFEST),
    JSON.stringify({ folder: dir, commit: checkoutCommit(dir) ?? null, tasks: report.written.map((w) => path.basename(w)) }, null, 2) + '\n',
  );
  return report;
}

/** Copies a task folder unchanged, once it loads as a task here; a task that does not is left out with why. */
function copyTask(from: string, to: string, report: ImportReport): boolean {
  try {
    loadTask(from);
  } catch (err) {
    report.skipped.push({ id: path.basename(from), cause: errorMessage(err) });
    return false;
  }
  cpSync(from, to, { recursive: true });
  report.written.push(to);
  return true;
}

function pickDataset(datasets: Dataset[], wanted: string | undefined, file: string): Dataset {
  const names = datasets.map((d) => `${d.name}@${d.version}`);
  if (!wanted) {
    if (datasets.length === 1) return datasets[0]!;
    throw new UserError(`${file} holds ${datasets.length} datasets`, `pick one with --dataset: ${names.join(', ')}`);
  }
  const [name, version] = wanted.split('@');
  const matches = datasets.filter((d) => d.name === name && (version === undefined || d.version === version));
  if (matches.length !== 1) {
    throw new UserError(`${file}: ${matches.length ? `several datasets match ${wanted}` : `no dataset ${wanted}`}`, `use one of: ${names.join(', ')}`);
  }
  return matches[0]!;
}
