import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../../src/rollout/run.js';
import { ownerLabel } from '../../../src/util/process-owner.js';
import { SqliteDb } from '../../../src/store/sqlite.js';
import { exportRun } from '../../../src/trajectory/export.js';
import { trajectoryStats } from '../../../src/trajectory/stats.js';
import { UserError } from '../../../src/util/errors.js';
import { BASH_TOOL, ChatHistory, finalAnswer, RecordedRun, toolCall } from './recorded-run.js';

let run: RecordedRun | undefined;
afterEach(async () => {
  await run?.close();
  run?.remove();
  run = undefined;
});

/** Two rewarded rollouts of two calls each. */
async function recordRun(): Promise<RecordedRun> {
  const r = await RecordedRun.create();
  for (const index of [0, 1]) {
    const rollout = await r.rollout('t', index, 1);
    const chat = new ChatHistory('sys', 'go');
    await rollout.call(chat.snapshot(), toolCall('ls'), { tools: [BASH_TOOL] });
    chat.answer(toolCall('ls'), 1);
    chat.toolResult('a', 1);
    await rollout.call(chat.snapshot(), finalAnswer('done'), { tools: [BASH_TOOL] });
  }
  return r;
}

/** Damages one stored row behind the store's back, as a crashed writer or a bad disk would. */
async function corrupt(r: RecordedRun, sql: string): Promise<void> {
  const db = await SqliteDb.open(path.join(r.dir, STORE_FILE));
  await db.run(sql);
  await db.close();
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('export and stats on bad input', () => {
  it('refuses a run whose lock names a live process unless --allow-running; a stale lock means interrupted', async () => {
    run = await recordRun();
    await run.store.setRunStatus(run.runId, 'running');
    writeFileSync(path.join(run.dir, '.openforge.lock'), ownerLabel()); // this test process: alive
    const err = await rejection(exportRun(run.dir, { format: 'verl' }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/run run-test in .* is still running \(held by .*\)[\s\S]*--allow-running/);
    expect((await exportRun(run.dir, { format: 'verl', allowRunning: true })).rows).toBe(2);

    writeFileSync(path.join(run.dir, '.openforge.lock'), `${os.hostname()}:999999999:1`);
    expect(await exportRun(run.dir, { format: 'verl' })).toMatchObject({ rows: 2, interrupted: true });
  });

  it('names a missing folder, a folder without a store, an unknown format or file type, and an unknown run', async () => {
    run = await recordRun();
    const missing = path.join(run.dir, 'nope', 'deeper');
    expect((await rejection(exportRun(missing, { format: 'verl' }))).message).toBe(`run folder ${missing} does not exist`);
    const empty = path.join(run.dir, 'empty', 'inner');
    mkdirSync(empty, { recursive: true });
    expect((await rejection(exportRun(empty, { format: 'verl' }))).message).toMatch(/inner has no openforge\.db: it is not an OpenForge run folder/);
    // a file that is not a store is named, and left as it was (opening it would write a schema into it)
    for (const [name, text] of [
      ['empty.db', ''],
      ['notes.txt', 'hello\n'],
    ] as const) {
      const file = path.join(run.dir, name);
      writeFileSync(file, text);
      expect((await rejection(exportRun(file, { format: 'verl' }))).message).toMatch(`${file} is not an OpenForge store: not a SQLite database`);
      expect((await rejection(trajectoryStats(file))).message).toMatch(`${file} is not an OpenForge store: not a SQLite database`);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
    expect((await rejection(exportRun(run.dir, { format: 'csv' }))).message).toMatch(/unknown export format "csv"[\s\S]*verl, sft/);
    expect((await rejection(exportRun(run.dir, { format: 'sft', out: path.join(run.dir, 'x.parquet') }))).message).toMatch(/--format sft writes JSONL only/);
    expect((await rejection(exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'x.csv') }))).message).toMatch(
      /cannot tell the file type of .*x\.csv/,
    );
    const unknown = await rejection(exportRun(run.dir, { format: 'verl', runId: 'run-other' }));
    expect(unknown).toBeInstanceOf(UserError);
    expect(unknown.message).toMatch(/run run-other is not in .*openforge\.db[\s\S]*runs there: run-test/);
  });

  it('names the rollout and seq of a token blob of the wrong length, leaves no partial file, and skips it under --skip-bad', async () => {
    run = await recordRun();
    await corrupt(run, "UPDATE calls SET prompt_ids = X'0102030405' WHERE rollout_id = 'run-test.t.1.1' AND seq = 2");
    const out = path.join(run.dir, 'exports', 'train.jsonl');
    for (const workers of [0, 2]) {
      // in this thread, and in worker threads with a batch per rollout
      const err = await rejection(exportRun(run.dir, { format: 'verl', out, workers, batchCalls: 1 }));
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toMatch(/rollout run-test\.t\.1\.1, call seq 2: prompt_ids blob is 5 bytes, not a whole number of int32 token ids[\s\S]*--skip-bad/);
      expect(readdirSync(path.dirname(out))).toEqual([]);
    }

    for (const workers of [0, 2]) {
      const report = await exportRun(run.dir, { format: 'verl', out, skipBad: true, workers, batchCalls: 1 });
      expect(report).toMatchObject({ rows: 1, rolloutsExported: 1, skipped: { corrupt: [{ rolloutId: 'run-test.t.1.1', seq: 2 }] } });
    }
    expect(existsSync(out)).toBe(true);
    const stats = await trajectoryStats(run.dir);
    expect(stats.corruptRollouts).toEqual([expect.objectContaining({ rolloutId: 'run-test.t.1.1', seq: 2 })]);
  });

  it('names the rollout and seq of unparsable request or response JSON where it is read', async () => {
    run = await recordRun();
    // veRL rows read the last call's response when it may hold a weight version, and its request when it may hold images; SFT reads both.
    // (The store noted those words when the rows were stored: the damage comes later, with the notes set.)
    await corrupt(
      run,
      'UPDATE calls SET response = \'{"weight_version": 3, "choices": [\', response_mentions_weight_version = 1 WHERE rollout_id = \'run-test.t.0.1\' AND seq = 2',
    );
    expect((await rejection(exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'a.jsonl') }))).message).toMatch(
      /rollout run-test\.t\.0\.1, call seq 2: response is not valid JSON/,
    );
    await corrupt(
      run,
      'UPDATE calls SET request = \'{"messages": [{"role": "user", "content": [{"type": "image_url\', request_piece_mentions_image = 1 WHERE rollout_id = \'run-test.t.1.1\' AND seq = 2',
    );
    const report = await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'b.jsonl'), skipBad: true });
    expect(report.skipped.corrupt.map((c) => c.message)).toEqual([
      expect.stringMatching(/rollout run-test\.t\.0\.1, call seq 2: response is not valid JSON/),
      expect.stringMatching(/rollout run-test\.t\.1\.1, call seq 2: request is not valid JSON/),
    ]);
    expect((await rejection(exportRun(run.dir, { format: 'sft', out: path.join(run.dir, 'c.jsonl') }))).message).toMatch(
      /rollout run-test\.t\.0\.1, call seq 2: (request|response) is not valid JSON/,
    );
  });

  it('names logprobs that do not line up with the completion', async () => {
    run = await recordRun();
    await corrupt(run, "UPDATE calls SET logprobs = zeroblob(8) WHERE rollout_id = 'run-test.t.0.1' AND seq = 1");
    expect((await rejection(exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'a.parquet') }))).message).toMatch(
      /rollout run-test\.t\.0\.1, call seq 1: 1 logprobs for \d+ completion tokens/,
    );
    expect(readdirSync(run.dir).filter((f) => f.includes('parquet'))).toEqual([]);
  });

  it('reports a file that is not a SQLite database', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-traj-notdb-'));
    try {
      writeFileSync(path.join(dir, STORE_FILE), 'this is not a database, just text that is long enough to have a header..........');
      const err = await rejection(exportRun(dir, { format: 'verl' }));
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toMatch(/openforge\.db cannot be opened as an OpenForge store: .*not a database/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
