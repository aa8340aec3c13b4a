import type { RolloutRecord, StoredCallRow } from '../store/store.js';
import { RolloutTrajectoryBuilder, type RolloutBuildStats } from './builder.js';
import { readAhead } from './read-ahead.js';
import type { RunSource } from './run-source.js';
import { storedCall } from './stored-call.js';
import { CorruptCallError } from './trajectory-call.js';
import type { TrajectorySample } from './types.js';

export type RolloutResult =
  { rollout: RolloutRecord; samples: TrajectorySample[]; stats: RolloutBuildStats; calls: number } | { rollout: RolloutRecord; corrupt: CorruptCallError };

/** What building samples needs of an open run: its store, its id, and whether the sim served it. */
export type SampleSource = Pick<RunSource, 'store' | 'run' | 'simulated'>;

/** Pages of call rows read ahead of the builder: enough to overlap SQLite reads with building, few enough to stay small. */
const READ_AHEAD_PAGES = 8;

type PageItem = { rollout: RolloutRecord; rows: StoredCallRow[] } | { rollout: RolloutRecord; end: true };

/**
 * The samples of each rollout of the run, one rollout at a time: only the rollout being built (and
 * a bounded read-ahead of rows) is in memory. A rollout with a corrupt call row yields that error
 * instead (the caller decides whether to stop or skip it); any other failure is thrown.
 */
export async function* runSamples(source: SampleSource, rollouts: readonly RolloutRecord[]): AsyncGenerator<RolloutResult> {
  let builder: RolloutTrajectoryBuilder | undefined;
  let calls = 0;
  let corrupt: CorruptCallError | undefined;
  for await (const item of readAhead(pagesOf(source, rollouts), READ_AHEAD_PAGES)) {
    builder ??= newBuilder(source, item.rollout, 'rows' in item ? storedTokens(item.rows) : undefined);
    if ('rows' in item) {
      calls += item.rows.length;
      for (const row of item.rows) {
        if (corrupt) break;
        try {
          const pending = builder.add(storedCall(source.store, row));
          if (pending) await pending;
        } catch (err) {
          if (!(err instanceof CorruptCallError)) throw err;
          corrupt = err;
        }
      }
      continue;
    }
    let result: RolloutResult;
    try {
      if (corrupt) throw corrupt;
      result = { rollout: item.rollout, ...(await builder.finish()), calls };
    } catch (err) {
      if (!(err instanceof CorruptCallError)) throw err;
      result = { rollout: item.rollout, corrupt: err };
    }
    [builder, calls, corrupt] = [undefined, 0, undefined];
    yield result;
  }
}

/** The samples of one rollout (throws CorruptCallError for a corrupt row). */
export async function rolloutSamples(
  source: SampleSource,
  rollout: RolloutRecord,
): Promise<{ samples: TrajectorySample[]; stats: RolloutBuildStats; calls: number }> {
  for await (const result of runSamples(source, [rollout])) {
    if ('corrupt' in result) throw result.corrupt;
    return result;
  }
  throw new Error(`no result for rollout ${rollout.id}`);
}

/** Rollouts read together in one query while their calls add up to at most this many rows… */
const CHUNK_CALLS = 2048;
/** … and at most this many rollouts (one SQL parameter each). */
const CHUNK_ROLLOUTS = 256;

/** Chunks read ahead of the one being built: SQLite works in libuv's pool meanwhile. */
const CHUNKS_AHEAD = 2;

/**
 * The call rows of each rollout in order, then its end. Short rollouts are read a chunk at a time in
 * one query each (the next chunks are read while this one is built); a rollout with more calls than a
 * chunk holds is read page by page on its own.
 */
async function* pagesOf(source: SampleSource, rollouts: readonly RolloutRecord[]): AsyncGenerator<PageItem> {
  for await (const { chunk, rows } of readAhead(chunkReads(source, rollouts), CHUNKS_AHEAD)) {
    if (!rows) {
      const rollout = chunk[0]!.rollout;
      for await (const page of source.store.callPagesOf(rollout.id)) yield { rollout, rows: page };
      yield { rollout, end: true };
      continue;
    }
    for (const { rollout } of chunk) {
      const own = rows.get(rollout.id);
      if (own) yield { rollout, rows: own };
      yield { rollout, end: true };
    }
  }
}

type Chunk = { rollout: RolloutRecord; long: boolean; calls: number }[];

/** Each chunk with its rows read in one query; a long rollout's chunk without rows (it is paged). */
async function* chunkReads(source: SampleSource, rollouts: readonly RolloutRecord[]): AsyncGenerator<{ chunk: Chunk; rows?: Map<string, StoredCallRow[]> }> {
  for await (const chunk of chunksOf(source, rollouts)) {
    if (chunk.length === 1 && chunk[0]!.long) yield { chunk };
    else yield { chunk, rows: await source.store.callsOfRollouts(chunk.map((c) => c.rollout.id)) };
  }
}

/**
 * Consecutive rollouts in batches of at most `maxCalls` calls (a longer rollout is a batch of its
 * own), with their call counts: the units the export hands to its workers.
 */
export async function* rolloutBatches(
  source: SampleSource,
  rollouts: readonly RolloutRecord[],
  maxCalls = CHUNK_CALLS,
): AsyncGenerator<{ rollouts: RolloutRecord[]; calls: number }> {
  for await (const chunk of chunksOf(source, rollouts, maxCalls))
    yield { rollouts: chunk.map((c) => c.rollout), calls: chunk.reduce((n, c) => n + c.calls, 0) };
}

/** Consecutive rollouts grouped by their call counts (asked for a window of rollouts at a time). */
async function* chunksOf(source: SampleSource, rollouts: readonly RolloutRecord[], maxCalls = CHUNK_CALLS): AsyncGenerator<Chunk> {
  let chunk: Chunk = [];
  let calls = 0;
  for (let from = 0; from < rollouts.length; from += CHUNK_ROLLOUTS) {
    const window = rollouts.slice(from, from + CHUNK_ROLLOUTS);
    const counts = await source.store.countCalls(window.map((r) => r.id));
    for (const rollout of window) {
      const n = counts.get(rollout.id) ?? 0;
      if (n > maxCalls) {
        if (chunk.length > 0) yield chunk;
        yield [{ rollout, long: true, calls: n }];
        [chunk, calls] = [[], 0];
        continue;
      }
      if (calls + n > maxCalls || chunk.length >= CHUNK_ROLLOUTS) {
        yield chunk;
        [chunk, calls] = [[], 0];
      }
      chunk.push({ rollout, long: false, calls: n });
      calls += n;
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Token ids the rows store: prompt pieces (deltas or whole) and completions. */
function storedTokens(rows: StoredCallRow[]): number {
  let bytes = 0;
  for (const row of rows) bytes += ((row.stored_prompt_ids ?? row.prompt_ids)?.length ?? 0) + (row.completion_ids?.length ?? 0);
  return Math.ceil(bytes / 4);
}

function newBuilder(source: SampleSource, rollout: RolloutRecord, storedTokens: number | undefined): RolloutTrajectoryBuilder {
  return new RolloutTrajectoryBuilder({
    storedTokens,
    runId: source.run.id,
    rolloutId: rollout.id,
    taskId: rollout.taskId,
    sampleIndex: rollout.sampleIndex,
    harness: rollout.harness,
    reward: rollout.reward,
    simulated: source.simulated,
  });
}
