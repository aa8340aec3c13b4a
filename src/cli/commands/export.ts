import { Command, InvalidArgumentError, Option } from 'commander';
import { exportRun, type ExportReport } from '../../trajectory/export.js';
import { exporters } from '../../trajectory/exporters/registry.js';
import { IMAGE_MODES, type ImageMode } from '../../trajectory/verl-images.js';
import { RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION } from '../run-dir-argument.js';
import { UserError } from '../../util/errors.js';

interface ExportCliOptions {
  format: string;
  out?: string;
  run?: string;
  minReward?: number;
  unrewarded?: boolean;
  allowRunning?: boolean;
  skipBad?: boolean;
  dropUniformGroups?: boolean;
  includeStale?: boolean;
  workers?: number;
  images?: ImageMode;
}

/** `openforge export`: a run's recorded calls as training data. */
export function exportCommand(): Command {
  return new Command('export')
    .description(
      `write a run as training data: ${exporters()
        .map((e) => `${e.name} (${e.description}; ${e.fileTypes.join(' or ')})`)
        .join('; ')}`,
    )
    .argument(RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION)
    .requiredOption(
      '--format <format>',
      exporters()
        .map((e) => e.name)
        .join(' | '),
    )
    .option('--out <file>', 'output file of a type the format writes, by extension; default <run-dir>/<run id>/<format>.<its first type>')
    .option('--run <id>', 'run id (default: the latest run in the folder)')
    .option('--min-reward <x>', 'leave out rollouts whose reward is below x', parseReward)
    .option('--unrewarded', 'keep rollouts without a reward (reward_score null), e.g. what `openforge proxy` recorded ungraded')
    .option('--allow-running', 'export what is recorded so far while the run is still going')
    .option('--skip-bad', 'leave out rollouts with unreadable call rows (counted) instead of failing')
    .option('--drop-uniform-groups', 'leave out every rollout of a task whose graded rollouts all got the same reward (no GRPO signal), counted')
    .option('--include-stale', 'keep rollouts marked stale (their first model call more than max_staleness weight versions old when they ended)')
    .option(
      '--workers <n>',
      'threads building veRL JSONL rows (0: this thread only; default: one per core, at most 4, for runs of 20 000+ calls, 150 000+ on two cores)',
      parseWorkers,
    )
    .addOption(
      new Option(
        '--images <how>',
        'how veRL rows carry screenshots and other images: inline (base64 data URLs in the rows) or files (written to <out name>.images/ beside the export, paths in the rows); default inline',
      ).choices(IMAGE_MODES),
    )
    .action(async (dir: string, opts: ExportCliOptions) => {
      if (opts.images && opts.format !== 'verl') {
        throw new UserError(
          `--images applies to --format verl; ${opts.format} rows do not carry images that way`,
          'drop --images, or export with --format verl',
        );
      }
      const report = await exportRun(dir, {
        format: opts.format,
        out: opts.out,
        runId: opts.run,
        minReward: opts.minReward,
        unrewarded: opts.unrewarded,
        allowRunning: opts.allowRunning,
        skipBad: opts.skipBad,
        dropUniformGroups: opts.dropUniformGroups,
        includeStale: opts.includeStale,
        workers: opts.workers,
        images: opts.images,
      });
      process.stdout.write(`${describeExport(report)}\n`);
    });
}

function parseWorkers(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 64) throw new InvalidArgumentError(`expected a whole number of threads from 0 to 64, got "${value}"`);
  return n;
}

function parseReward(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return x;
}

function describeExport(r: ExportReport): string {
  const skipped = [
    r.skipped.withoutReward > 0 ? `${r.skipped.withoutReward} without a reward (--unrewarded keeps them)` : '',
    r.skipped.belowMinReward > 0 ? `${r.skipped.belowMinReward} below --min-reward` : '',
    r.skipped.withoutSamples > 0 ? `${r.skipped.withoutSamples} with nothing to export` : '',
    r.skipped.uniformGroups > 0 ? `${r.skipped.uniformGroups} of ${r.uniformGroups} groups whose rewards were all equal (--drop-uniform-groups)` : '',
    r.skipped.stale > 0 ? `${r.skipped.stale} stale (--include-stale keeps them)` : '',
    r.skipped.corrupt.length > 0 ? `${r.skipped.corrupt.length} with corrupt rows (${r.skipped.corrupt.map((c) => `${c.rolloutId}#${c.seq}`).join(', ')})` : '',
  ].filter(Boolean);
  return [
    `wrote ${r.rows} ${r.format} rows (${r.fileType}) from ${r.rolloutsExported} rollouts of run ${r.runId} to ${r.file}`,
    ...(r.imagesDir ? [`images written to ${r.imagesDir}`] : []),
    ...(skipped.length > 0 ? [`rollouts left out: ${skipped.join(', ')}`] : []),
    ...(r.simulated ? ['model: SIMULATED (sim upstream, no real LLM): these samples are not from a trained policy'] : []),
    ...(r.interrupted ? ['note: the run was interrupted before it finished'] : []),
  ].join('\n');
}
