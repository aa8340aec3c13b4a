import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { UserError } from '../../util/errors.js';
import { ExportWorkerPool, type EncodedBatch } from '../export-pool.js';
import { JsonlSink } from '../jsonl-sink.js';
import type { RunSource } from '../run-source.js';
import { rolloutBatches, runSamples } from '../run-samples.js';
import { CorruptCallError } from '../trajectory-call.js';
import { imagesFolderOf, VerlImageWriter, type ImageOutput, type VerlRow } from '../verl-images.js';
import { VerlParquetSink } from '../verl-parquet-sink.js';
import { writeAll, type ExportJob, type Exporter, type RowSink } from './types.js';

/** veRL samples: token ids, masks and logprobs, one row per segment of a rollout, as JSONL or Parquet. */
export const verlExporter: Exporter = {
  name: 'verl',
  description: 'veRL samples: token ids, response mask and logprobs, one row per segment',
  fileTypes: ['jsonl', 'parquet'],
  async write(job) {
    const images = imageOutput(job);
    if (job.fileType === 'parquet') {
      const sink = new VerlParquetSink(job.file, job.options.parquet);
      await writeAll(sink, () => writeVerl(job, sink, images));
      return;
    }
    const workers = await workerCount(job.source, job.options.workers);
    const sink = new JsonlSink<VerlRow>(job.file);
    await writeAll(sink, () => (workers > 0 ? writeVerlInParallel(job, sink, workers, images) : writeVerl(job, sink, images)));
  },
};

/** `--images`: inline by default; `files` writes them beside the export (`verl.images/` for `verl.jsonl`). */
function imageOutput(job: ExportJob): ImageOutput {
  const mode = job.options.images ?? 'inline';
  if (mode === 'inline') return { mode };
  if (mode === 'files') return { mode, dir: imagesFolderOf(job.file), relativeTo: path.dirname(job.file) };
  throw new UserError(
    `--images ${String(mode)} is not a way to carry images`,
    'pass --images inline (bytes in the rows) or --images files (files beside the export)',
  );
}

async function writeVerl(job: ExportJob, sink: RowSink<VerlRow>, output: ImageOutput): Promise<void> {
  const images = new VerlImageWriter(output);
  for await (const result of runSamples(job.source, job.rollouts)) {
    if ('corrupt' in result) {
      job.skipOrFail(result.corrupt);
      continue;
    }
    for (const sample of result.samples) await sink.write(images.row(sample));
    job.countRollout(result.calls, result.samples.length);
  }
  job.report.rows = sink.rows;
  if (images.files > 0 && output.mode === 'files') job.report.imagesDir = output.dir;
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
async function writeVerlInParallel(job: ExportJob, sink: JsonlSink<VerlRow>, workers: number, images: ImageOutput): Promise<void> {
  const { source } = job;
  const pool = ExportWorkerPool.start(workers, {
    storeFile: source.store.file,
    run: source.run,
    simulated: source.simulated,
    images,
  });
  const inFlight: Promise<EncodedBatch>[] = [];
  const writeNext = async () => {
    const batch = await inFlight.shift()!;
    for (const rollout of batch.rollouts) {
      if (rollout.corrupt) {
        job.skipOrFail(new CorruptCallError(rollout.corrupt.rolloutId, rollout.corrupt.seq, rollout.corrupt.problem));
        continue;
      }
      job.countRollout(rollout.calls, rollout.samples);
    }
    await sink.writeEncoded(batch.bytes, batch.rows, batch.giveBack);
  };
  try {
    for await (const batch of rolloutBatches(source, job.rollouts, job.options.batchCalls)) {
      const encoded = pool.encode(batch.rollouts);
      encoded.catch(() => undefined); // observed in its turn
      inFlight.push(encoded);
      if (inFlight.length >= pool.size * 2) await writeNext();
    }
    while (inFlight.length > 0) await writeNext();
    await pool.close();
    if (images.mode === 'files' && existsSync(images.dir)) job.report.imagesDir = images.dir;
  } catch (err) {
    await pool.terminate();
    throw err;
  }
  job.report.rows = sink.rows;
}
