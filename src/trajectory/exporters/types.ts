import type { RolloutRecord } from '../../store/store.js';
import type { CorruptCallError } from '../trajectory-call.js';
import type { RunSource } from '../run-source.js';
import type { ParquetSinkOptions } from '../verl-parquet-sink.js';
import type { ImageMode } from '../verl-images.js';

/** What `openforge export` was asked. */
export interface ExportOptions {
  format: string;
  /** The file to write, of a type the format writes (by extension); default `<output>/<run id>/<format>.<its first type>`. */
  out?: string;
  runId?: string;
  /** Leave out rollouts whose reward is below this. */
  minReward?: number;
  /** Keep rollouts that have no reward (reward_score null), e.g. calls a standalone proxy recorded ungraded. */
  unrewarded?: boolean;
  allowRunning?: boolean;
  /** Leave out rollouts with an unreadable call row (counted) instead of failing. */
  skipBad?: boolean;
  /** Leave out every rollout of a group (a task's rollouts in the run) whose graded rollouts all got the same reward: no GRPO signal. */
  dropUniformGroups?: boolean;
  /** Keep rollouts marked stale (their first call more than `max_staleness` weight versions old when they ended). */
  includeStale?: boolean;
  parquet?: ParquetSinkOptions;
  /** How veRL rows carry their images: `inline` (default: base64 data URLs in the rows) or `files` (written beside the export, paths in the rows). */
  images?: ImageMode;
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
  format: string;
  /** The file's type: its extension without the dot (jsonl, parquet, …). */
  fileType: string;
  runId: string;
  rows: number;
  calls: number;
  rolloutsExported: number;
  /** Rollouts left out, by why. */
  skipped: {
    withoutReward: number;
    belowMinReward: number;
    withoutSamples: number;
    corrupt: { rolloutId: string; seq: number; message: string }[];
    /** Rollouts of groups whose rewards were all equal, with `dropUniformGroups`. */
    uniformGroups: number;
    /** Rollouts marked stale, without `includeStale`. */
    stale: number;
  };
  /** Groups left out as uniform, with `dropUniformGroups`. */
  uniformGroups: number;
  simulated: boolean;
  /** The folder the rows' image files were written to (`--images files`), when any row had an image. */
  imagesDir?: string;
  /** The run never finished and no process holds it any more. */
  interrupted: boolean;
}

/**
 * A training-data format (`openforge export --format <name>`): one file per export, written row by row
 * from a run's rollouts. A new format is a file implementing this plus one entry in ./registry.ts.
 */
export interface Exporter {
  readonly name: string;
  /** One line for `openforge export --help`. */
  readonly description: string;
  /** The file types it writes, by extension without the dot; the first is the default. */
  readonly fileTypes: readonly string[];
  /** Writes `job.rollouts` to `job.file` (whose folder exists), counting what it writes and leaves out in `job.report`. */
  write(job: ExportJob): Promise<void>;
}

/** One export in progress: what to write where, and the report to count it in. */
export interface ExportJob {
  source: RunSource;
  /** The rollouts selected (by reward), in the run's order. */
  rollouts: RolloutRecord[];
  file: string;
  fileType: string;
  options: ExportOptions;
  report: ExportReport;
  /** A rollout with an unreadable call: counted and left out with --skip-bad, else the export fails. */
  skipOrFail(err: CorruptCallError): void;
  /** A rollout's calls and rows (samples), once they are written or queued. */
  countRollout(calls: number, rows: number): void;
}

/** Where an exporter's rows go: a file written row by row, renamed into place only when whole. */
export interface RowSink<Row> {
  rows: number;
  write(row: Row): Promise<void>;
  close(): Promise<void>;
  abort(): Promise<void>;
}

/** Closes the sink when `write` succeeds, and aborts it (no file left behind) when it fails. */
export async function writeAll(sink: RowSink<never>, write: () => Promise<void>): Promise<void> {
  try {
    await write();
    await sink.close();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}
