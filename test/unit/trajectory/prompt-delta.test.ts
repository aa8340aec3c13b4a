import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../../src/rollout/run.js';
import { MIGRATIONS } from '../../../src/store/schema.js';
import { SqliteDb } from '../../../src/store/sqlite.js';
import { Store } from '../../../src/store/store.js';
import type { RecordedCall } from '../../../src/records/call.js';
import { exportRun } from '../../../src/trajectory/export.js';
import { samplesOf } from './build-samples.js';
import { BASH_TOOL, ChatHistory, finalAnswer, RecordedRun, toolCall } from './recorded-run.js';

let run: RecordedRun | undefined;
afterEach(async () => {
  await run?.close();
  run?.remove();
  run = undefined;
});

async function rawRows(r: RecordedRun, rolloutId: string) {
  const db = await SqliteDb.open(path.join(r.dir, STORE_FILE));
  const rows = await db.all<{ seq: number; bytes: number | null; base: number | null; shared: number | null }>(
    'SELECT seq, LENGTH(prompt_ids) AS bytes, prompt_base_seq AS base, prompt_shared_len AS shared FROM calls WHERE rollout_id = ? ORDER BY seq',
    [rolloutId],
  );
  await db.close();
  return rows;
}

/** A 50-turn tool conversation recorded with the sim template; each tool result is ~100 tokens. */
async function fiftyTurns(r: RecordedRun): Promise<{ id: string; recorded: RecordedCall[] }> {
  const rollout = await r.rollout('long', 0, 1);
  const chat = new ChatHistory('You are a shell agent.', 'Inspect the repository.');
  const recorded: RecordedCall[] = [];
  for (let turn = 1; turn <= 50; turn++) {
    const answer = turn < 50 ? toolCall(`cat file${turn}.txt`) : finalAnswer('done');
    recorded.push(await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL] }));
    chat.answer(answer, turn);
    chat.toolResult(`line ${turn}: ${'lorem ipsum dolor sit amet '.repeat(20)}`, turn);
  }
  return { id: rollout.id, recorded };
}

describe('delta storage of prompt ids', () => {
  it('stores a 50-turn conversation in linear space and reads back every prompt exactly', async () => {
    run = await RecordedRun.create();
    const { id, recorded } = await fiftyTurns(run);
    const rows = await rawRows(run, id);
    expect(rows[0]).toMatchObject({ base: null });
    rows
      .slice(1)
      .forEach((row, i) => expect(row).toMatchObject({ base: i + 1, shared: recorded[i]!.promptTokenIds!.length + recorded[i]!.completionTokenIds!.length }));
    const storedBytes = rows.reduce((n, r) => n + (r.bytes ?? 0), 0);
    const fullBytes = recorded.reduce((n, c) => n + c.promptTokenIds!.length * 4, 0);
    const lastPromptBytes = recorded[49]!.promptTokenIds!.length * 4;
    expect(storedBytes).toBeLessThanOrEqual(lastPromptBytes); // linear: every token stored once
    expect(fullBytes / storedBytes).toBeGreaterThan(20); // stored whole, 50 growing prompts cost ~25× more

    expect(await run.store.listCalls(id)).toEqual(recorded);
    const reopened = await Store.open(path.join(run.dir, STORE_FILE));
    expect(await reopened.listCalls(id)).toEqual(recorded);
    await reopened.close();
    // Streamed a few rows at a time (bases kept only while a later row needs them), the prompts are the same.
    const streamed: (number[] | null)[] = [];
    for await (const page of run.store.callPagesOf(id, 7)) {
      expect(page.length).toBeLessThanOrEqual(7);
      for (const row of page) streamed.push(row.prompt_ids ? Array.from(new Int32Array(new Uint8Array(row.prompt_ids).buffer)) : null);
    }
    expect(streamed).toEqual(recorded.map((c) => c.promptTokenIds));
    const { samples } = await samplesOf(run, id);
    expect(samples).toHaveLength(1);
    expect([...samples[0]!.prompt_ids, ...samples[0]!.response_ids]).toEqual([...recorded[49]!.promptTokenIds!, ...recorded[49]!.completionTokenIds!]);
  });

  it('bases an interleaved sub-agent call on its own conversation, and survives out-of-order writes and a reopened store', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('t', 0, 1);
    const main = new ChatHistory('You are the main agent. '.repeat(10), 'Do the task.');
    const sub = new ChatHistory('You are a sub-agent. '.repeat(10), 'Search.');
    const recorded: RecordedCall[] = [];
    for (const [who, turn] of [
      ['main', 1],
      ['sub', 2],
      ['main', 3],
      ['sub', 4],
      ['main', 5],
    ] as const) {
      const chat = who === 'main' ? main : sub;
      const answer = toolCall(`${who} step ${turn}`);
      recorded.push(await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL] }));
      chat.answer(answer, turn);
      chat.toolResult(`${who} result ${turn} `.repeat(10), turn);
    }
    expect((await rawRows(run, rollout.id)).map((r) => r.base)).toEqual([null, null, 1, 2, 3]);

    // A fresh store (the proxy restarted) has no cache: it writes whole prompts, then deltas again.
    const store = await Store.open(path.join(run.dir, STORE_FILE));
    const next = (seq: number, prompt: number[]): RecordedCall => ({
      ...recorded[4]!,
      seq,
      promptTokenIds: prompt,
      completionTokenIds: [5, 6],
      logprobs: [-1, -2],
    });
    const longer = [...recorded[4]!.promptTokenIds!, ...recorded[4]!.completionTokenIds!, 7, 8, 9];
    // seq 7 arrives before seq 6: it may only use calls already written with a smaller seq.
    await store.recordCall(next(7, [...longer, 5, 6, 10]));
    await store.recordCall(next(6, longer));
    await store.recordCall(next(8, [...longer, 5, 6, 10, 5, 6, 11]));
    const rows = await rawRows(run, rollout.id);
    expect(rows.slice(5).map((r) => r.base)).toEqual([null, null, 7]);
    const calls = await store.listCalls(rollout.id);
    expect(calls.map((c) => c.promptTokenIds)).toEqual([
      ...recorded.map((c) => c.promptTokenIds),
      longer,
      [...longer, 5, 6, 10],
      [...longer, 5, 6, 10, 5, 6, 11],
    ]);
    await store.close();
    const { samples } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => s.extra_fields.call_seqs)).toEqual([
      [1, 3, 5, 6, 7, 8],
      [2, 4],
    ]);
    // Read with other rollouts in one grouped query, prompts rebuilt on demand (newest first, so chains are walked), the same prompts.
    const other = await run.rollout('t2', 0, 1);
    await other.call(new ChatHistory('Another agent.', 'Go.').snapshot(), finalAnswer('ok'), { tools: [BASH_TOOL] });
    await run.store.flush();
    const grouped = await run.store.callsOfRollouts([rollout.id, other.id, 'no-such-rollout']);
    expect([...grouped.keys()].sort()).toEqual([other.id, rollout.id].sort());
    const rowsOf = grouped.get(rollout.id)!;
    const whole = rowsOf.map((row) => (row.whole_prompt ? row.whole_prompt() : row.prompt_ids));
    const wholeNewestFirst = [...rowsOf]
      .reverse()
      .map((row) => (row.whole_prompt ? row.whole_prompt() : row.prompt_ids))
      .reverse();
    const expected = calls.map((c) => c.promptTokenIds);
    for (const blobs of [whole, wholeNewestFirst]) {
      expect(blobs.map((b) => (b === null || typeof b === 'string' ? b : Array.from(new Int32Array(new Uint8Array(b).buffer))))).toEqual(expected);
    }
    expect(rowsOf.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('reads a store written before delta storage (whole prompts, schema version 1) after migrating it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-traj-legacy-'));
    try {
      const file = path.join(dir, STORE_FILE);
      const db = await SqliteDb.open(file);
      await db.exec(`BEGIN; ${MIGRATIONS[0]}; PRAGMA user_version = 1; COMMIT;`);
      await db.run(`INSERT INTO runs (id, created_at, config, status) VALUES ('r', 0, '{}', 'finished')`);
      await db.run(
        `INSERT INTO rollouts (id, run_id, task_id, sample_index, attempt, harness, status, reward, created_at) VALUES ('r.t.0.1', 'r', 't', 0, 1, 'h', 'finished', 1, 0)`,
      );
      const ids = (a: number[]) => Buffer.from(Int32Array.from(a).buffer);
      const insert = (seq: number, prompt: number[], completion: number[]) =>
        db.run(
          `INSERT INTO calls (rollout_id, seq, label, protocol, model, stream, request, response, status, prompt_ids, completion_ids, logprobs, upstream, started_at, duration_ms, missing_token_ids)
           VALUES ('r.t.0.1', ?, 'policy', 'chat', 'm', 0, '{"messages": []}', '{"choices": []}', 200, ?, ?, ?, 'u', 0, 1, 0)`,
          [seq, ids(prompt), ids(completion), Buffer.from(Float64Array.from(completion.map(() => -0.5)).buffer)],
        );
      await insert(1, [40, 41, 42], [50, 51]);
      await insert(2, [40, 41, 42, 50, 51, 60], [70]);
      await db.close();

      const store = await Store.open(file);
      expect((await store.listCalls('r.t.0.1')).map((c) => c.promptTokenIds)).toEqual([
        [40, 41, 42],
        [40, 41, 42, 50, 51, 60],
      ]);
      await store.close();
      const rows = readFileSync((await exportRun(dir, { format: 'verl' })).file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        prompt_ids: [40, 41, 42],
        response_ids: [50, 51, 60, 70],
        response_mask: [1, 1, 0, 1],
        response_logprobs: [-0.5, -0.5, 0, -0.5],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the rollout and seq whose base row is gone', async () => {
    run = await RecordedRun.create();
    const { id } = await fiftyTurns(run);
    const db = await SqliteDb.open(path.join(run.dir, STORE_FILE));
    await db.run('DELETE FROM calls WHERE rollout_id = ? AND seq = 10', [id]);
    await db.close();
    await expect(run.store.listCalls(id)).rejects.toThrow(`rollout ${id}, call seq 11: prompt refers to call seq 10, which is missing or unreadable`);
    await expect(exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'x.jsonl') })).rejects.toThrow(
      `rollout ${id}, call seq 11: prompt refers to call seq 10, which is missing or unreadable`,
    );
  });
});
