import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { RolloutRecord } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { ExportWorkerPool, type EncodedBatch } from './export-pool.js';
import { JsonlSink } from './jsonl-sink.js';
import { openRunSource, type RunSource } from './run-source.js';
import { rolloutBatches, runSamples } from './run-samples.js';
import { sftRecord } from './sft.js';
import { CorruptCallError } from './trajectory-call.js';
import type { TrajectorySample } from './types.js';
import { VerlParquetSink, type ParquetSinkOptions } from './verl-parquet-sink.js';

export const EXPORT_FORMATS = ['verl', 'sft'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  format: string;
  /** `.jsonl` or `.parquet` (veRL only); default `<output>/<run id>/<format>.jsonl`. */
  out?: string;
  runId?: string;
  /** Leave out rollouts whose reward is below this. */
  minReward?: number;
  /** Keep rollouts that have no reward (reward_score null), e.g. calls a standalone proxy recorded ungraded. */
  unrewarded?: boolean;
  allowRunning?: boolean;
  /** Leave out rollouts with an unreadable call row (counted) instead of failing. */
  skipBad?: boolean;
  parquet?: ParquetSinkOptions;
  /**
   * Threads that build and encode veRL JSONL rows side by side (0: all in this thread). Default: one
   * per CPU core (at most 4) for runs of at least `parallelMinCalls(cores)` calls, none for smaller ones.
   */
  workers?: number;
  /** Calls per batch of rollouts a worker encodes (default about 2 000; tests use small ones to get many batches). */
  batchCalls?: number;
  /** Called after each rollout, with the number of calls it had. */
  onRollout?(calls: number): void;
}

export interface ExportReport {
  file: string;
  format: ExportFormat;
  fileType: 'jsonl' | 'parquet';
  runId: string;
  rows: number;
  calls: number;
  rolloutsExported: number;
  /** Rollouts left out, by why. */
  skipped: { withoutReward: number; belowMinReward: number; withoutSamples: number; corrupt: { rolloutId: string; seq: number; message: string }[] };
  simulated: boolean;
  /** The run never finished and no process holds it any more. */
  interrupted: boolean;
}

interface RowSink<Row> {
  rows: number;
  write(row: Row): Promise<void>;
  close(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Writes a run's training data: veRL samples (one row per segment) as JSONL or Parquet, or SFT
 * conversations as JSONL. Streams one rollout at a time into a temporary file renamed at the end.
 */
export async function exportRun(dir: string, options: ExportOptions): Promise<ExportReport> {
  const format = checkFormat(options.format);
  if (options.out !== undefined) fileTypeOf(options.out, format);
  const source = await openRunSource(dir, { runId: options.runId, allowRunning: options.allowRunning });
  try {
    const file = path.resolve(options.out ?? path.join(source.dir, source.run.id, `${format}.jsonl`));
    const fileType = fileTypeOf(file, format);
    const report: ExportReport = {
      file, format, fileType, runId: source.run.id, rows: 0, calls: 0, rolloutsExported: 0,
      skipped: { withoutReward: 0, belowMinReward: 0, withoutSamples: 0, corrupt: [] },
      simulated: source.simulated, interrupted: source.interrupted,
    };
    const rollouts = source.rollouts.filter((r) => {
      // no reward reaches a --min-reward
      if (r.reward === null && !(options.unrewarded && options.minReward === undefined)) report.skipped.withoutReward++;
      else if (r.reward !== null && options.minReward !== undefined && r.reward < options.minReward) report.skipped.belowMinReward++;
      else return true;
      return false;
    });
    mkdirSync(path.dirname(file), { recursive: true });
    if (format === 'verl' && fileType === 'jsonl') {
      const workers = await workerCount(source, options.workers);
      const sink = new JsonlSink<TrajectorySample>(file);
      await writeAll(sink, () => (workers > 0 ? writeVerlInParallel(source, rollouts, sink, report, options, workers) : writeVerl(source, rollouts, sink, report, options)));
    } else if (format === 'verl') {
      const sink = new VerlParquetSink(file, options.parquet);
      await writeAll(sink, () => writeVerl(source, rollouts, sink, report, options));
    } else {
      const sink = new JsonlSink<unknown>(file);
      await writeAll(sink, () => writeSft(source, rollouts, sink, report, options));
    }
    return report;
  } finally {
    await source.store.close();
  }
}

async function writeAll(sink: RowSink<never>, write: () => Promise<void>): Promise<void> {
  try {
    await write();
    await sink.close();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}

async function writeVerl(source: RunSource, rollouts: RolloutRecord[], sink: RowSink<TrajectorySample>, report: ExportReport, options: ExportOptions): Promise<void> {
  for await (const result of runSamples(source, rollouts)) {
    if ('corrupt' in result) {
      skipOrFail(result.corrupt, report, options);
      continue;
    }
    for (const sample of result.samples) await sink.write(sample);
    countRollout(report, options, result.calls, result.samples.length);
  }
  report.rows = sink.rows;
}

/** A rollout's calls and samples in the report, once its rows are written or queued. */
function countRollout(report: ExportReport, options: ExportOptions, calls: number, samples: number): void {
  report.calls += calls;
  if (samples === 0) report.skipped.withoutSamples++;
  else report.rolloutsExported++;
  options.onRollout?.(calls);
}

/**
 * Below this many calls a run is exported in this thread: starting workers (a fresh isolate, cold JIT
 * each) costs more than they save. With two cores the workers share them with this thread and with
 * SQLite's reads, and one thread stays as fast up to about 150 000 calls (measured: 100 000 calls
 * 49–54 k/s in one thread vs 46–48 k/s with two workers; 300 000 calls 60–62 k/s vs 64–66 k/s).
 */
function parallelMinCalls(cores: number): number {
  return cores <= 2 ? 150_000 : 20_000;
}
const MAX_DEFAULT_WORKERS = 4;

async function workerCount(source: RunSource, asked: number | undefined): Promise<number> {
  if (asked !== undefined) {
    if (!Number.isInteger(asked) || asked < 0) throw new UserError(`--workers must be a whole number ≥ 0, not ${asked}`, 'pass 0 to export in one thread');
    return asked;
  }
  const cores = availableParallelism();
  if (cores < 2 || (await source.store.countRunCalls(source.run.id)) < parallelMinCalls(cores)) return 0;
  return Math.min(cores, MAX_DEFAULT_WORKERS);
}

/**
 * `writeVerl` spread over worker threads: batches of rollouts (about 2 000 calls each) are built and
 * encoded by the workers, two per worker in flight, and written here in the run's order, so the file
 * is byte for byte the one a single thread writes.
 */
async function writeVerlInParallel(source: RunSource, rollouts: RolloutRecord[], sink: JsonlSink<TrajectorySample>, report: ExportReport, options: ExportOptions, workers: number): Promise<void> {
  const pool = ExportWorkerPool.start(workers, { storeFile: source.store.file, run: source.run, simulated: source.simulated });
  const inFlight: Promise<EncodedBatch>[] = [];
  const writeNext = async () => {
    const batch = await inFlight.shift()!;
    for (const rollout of batch.rollouts) {
      if (rollout.corrupt) {
        skipOrFail(new CorruptCallError(rollout.corrupt.rolloutId, rollout.corrupt.seq, rollout.corrupt.problem), report, options);
        continue;
      }
      countRollout(report, options, rollout.calls, rollout.samples);
    }
    await sink.writeEncoded(batch.bytes, batch.rows, batch.giveBack);
  };
  try {
    for await (const batch of rolloutBatches(source, rollouts, options.batchCalls)) {
      const encoded = pool.encode(batch.rollouts);
      encoded.catch(() => undefined); // observed in its turn
      inFlight.push(encoded);
      if (inFlight.length >= pool.size * 2) await writeNext();
    }
    while (inFlight.length > 0) await writeNext();
    await pool.close();
  } catch (err) {
    await pool.terminate();
    throw err;
  }
  report.rows = sink.rows;
}

async function writeSft(source: RunSource, rollouts: RolloutRecord[], sink: RowSink<unknown>, report: ExportReport, options: ExportOptions): Promise<void> {
  for (const rollout of rollouts) {
    let record;
    try {
      record = await sftRecord(source.store, rollout);
    } catch (err) {
      if (!(err instanceof CorruptCallError)) throw err;
      skipOrFail(err, report, options);
      continue;
    }
    if (!record) report.skipped.withoutSamples++;
    else {
      report.rolloutsExported++;
      await sink.write(record);
    }
    options.onRollout?.(0);
  }
  report.rows = sink.rows;
}

function skipOrFail(err: CorruptCallError, report: ExportReport, options: ExportOptions): void {
  if (!options.skipBad) {
    throw new UserError(`corrupt record: ${err.message}`, 'pass --skip-bad to leave out rollouts with unreadable rows (they are counted)');
  }
  report.skipped.corrupt.push({ rolloutId: err.rolloutId, seq: err.seq, message: err.message });
}

function checkFormat(format: string): ExportFormat {
  if ((EXPORT_FORMATS as readonly string[]).includes(format)) return format as ExportFormat;
  throw new UserError(`unknown export format "${format}"`, `use one of: ${EXPORT_FORMATS.join(', ')}`);
}

function fileTypeOf(file: string, format: ExportFormat): 'jsonl' | 'parquet' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.jsonl') return 'jsonl';
  if (ext === '.parquet' && format === 'verl') return 'parquet';
  if (ext === '.parquet') throw new UserError(`--format ${format} writes JSONL only, not ${file}`, 'give --out a .jsonl name');
  throw new UserError(`cannot tell the file type of ${file}`, format === 'verl' ? 'give --out a .jsonl or .parquet name' : 'give --out a .jsonl name');
}
