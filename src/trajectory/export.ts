import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { exporterNamed, exporters } from './exporters/registry.js';
import type { ExportJob, ExportOptions, ExportReport, Exporter } from './exporters/types.js';
import { openRunSource } from './run-source.js';
import type { CorruptCallError } from './trajectory-call.js';

export type { ExportOptions, ExportReport } from './exporters/types.js';

/**
 * Writes a run's training data in a registered format (veRL samples as JSONL or Parquet, SFT
 * conversations as JSONL, …). Streams one rollout at a time into a temporary file renamed at the end.
 */
export async function exportRun(dir: string, options: ExportOptions): Promise<ExportReport> {
  const exporter = exporterNamed(options.format);
  if (options.out !== undefined) fileTypeOf(options.out, exporter);
  const source = await openRunSource(dir, { runId: options.runId, allowRunning: options.allowRunning });
  try {
    const file = path.resolve(options.out ?? path.join(source.dir, source.run.id, `${exporter.name}.${exporter.fileTypes[0]}`));
    const fileType = fileTypeOf(file, exporter);
    const report: ExportReport = {
      file,
      format: exporter.name,
      fileType,
      runId: source.run.id,
      rows: 0,
      calls: 0,
      rolloutsExported: 0,
      skipped: { withoutReward: 0, belowMinReward: 0, withoutSamples: 0, corrupt: [], uniformGroups: 0, stale: 0 },
      uniformGroups: 0,
      simulated: source.simulated,
      interrupted: source.interrupted,
    };
    const uniform = options.dropUniformGroups ? uniformGroups(source.rollouts) : new Set<string>();
    report.uniformGroups = uniform.size;
    const rollouts = source.rollouts.filter((r) => {
      if (r.stale && !options.includeStale) {
        report.skipped.stale++;
        return false;
      }
      if (uniform.has(r.taskId)) {
        report.skipped.uniformGroups++;
        return false;
      }
      // no reward reaches a --min-reward
      // an outage's rollout never trains, even with --unrewarded
      if (r.reward === null && (r.errorType === 'upstream_error' || !(options.unrewarded && options.minReward === undefined))) report.skipped.withoutReward++;
      else if (r.reward !== null && options.minReward !== undefined && r.reward < options.minReward) report.skipped.belowMinReward++;
      else return true;
      return false;
    });
    mkdirSync(path.dirname(file), { recursive: true });
    const job: ExportJob = {
      source,
      rollouts,
      file,
      fileType,
      options,
      report,
      skipOrFail: (err) => skipOrFail(err, report, options),
      countRollout(calls, rows) {
        report.calls += calls;
        if (rows === 0) report.skipped.withoutSamples++;
        else report.rolloutsExported++;
        options.onRollout?.(calls);
      },
    };
    await exporter.write(job);
    return report;
  } finally {
    await source.store.close();
  }
}

function skipOrFail(err: CorruptCallError, report: ExportReport, options: ExportOptions): void {
  if (!options.skipBad) {
    throw new UserError(`corrupt record: ${err.message}`, 'pass --skip-bad to leave out rollouts with unreadable rows (they are counted)');
  }
  report.skipped.corrupt.push({ rolloutId: err.rolloutId, seq: err.seq, message: err.message });
}

function fileTypeOf(file: string, exporter: Exporter): string {
  const type = path.extname(file).toLowerCase().slice(1);
  if (exporter.fileTypes.includes(type)) return type;
  const hint = `give --out a ${exporter.fileTypes.map((t) => `.${t}`).join(' or ')} name`;
  const written = new Set(exporters().flatMap((e) => e.fileTypes));
  if (written.has(type))
    throw new UserError(
      `--format ${exporter.name} writes ${exporter.fileTypes.map((t) => (t === 'jsonl' ? 'JSONL' : t === 'parquet' ? 'Parquet' : t)).join(' or ')} only, not ${file}`,
      hint,
    );
  throw new UserError(`cannot tell the file type of ${file}`, hint);
}

/** The groups (tasks) whose graded rollouts all got one reward: GRPO's advantages are all 0 there. */
export function uniformGroups(rollouts: readonly { taskId: string; reward: number | null }[]): Set<string> {
  const rewards = new Map<string, number[]>();
  for (const r of rollouts) if (r.reward !== null) rewards.set(r.taskId, [...(rewards.get(r.taskId) ?? []), r.reward]);
  return new Set([...rewards].filter(([, rs]) => rs.every((x) => x === rs[0])).map(([task]) => task));
}
