import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../../src/rollout/run.js';
import { MIGRATIONS } from '../../../src/store/schema.js';
import { SqliteDb } from '../../../src/store/sqlite.js';
import { Store } from '../../../src/store/store.js';
import { exportRun } from '../../../src/trajectory/export.js';

const ids = (a: number[]) => Buffer.from(Int32Array.from(a).buffer);
const floats = (a: number[]) => Buffer.from(Float64Array.from(a).buffer);
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A store at schema version 2 (delta storage, request in the middle of the row), written the way that version's store wrote calls. */
async function versionTwoStore(file: string): Promise<void> {
  const db = await SqliteDb.open(file);
  await db.exec(`BEGIN; ${MIGRATIONS[0]}; ${MIGRATIONS[1]}; PRAGMA user_version = 2; COMMIT;`);
  await db.run(`INSERT INTO runs (id, created_at, config, status) VALUES ('r', 0, '{}', 'finished')`);
  await db.run(
    `INSERT INTO rollouts (id, run_id, task_id, sample_index, attempt, harness, status, reward, created_at) VALUES ('r.t.0.1', 'r', 't', 0, 1, 'h', 'finished', 1, 0)`,
  );
  const insert = (seq: number, prompt: number[], completion: number[], base: number | null, shared: number | null, content: string) =>
    db.run(
      `INSERT INTO calls (rollout_id, seq, label, protocol, model, stream, request, response, status, error, prompt_ids, completion_ids,
        logprobs, finish_reason, upstream, started_at, ttfb_ms, duration_ms, missing_token_ids, prompt_base_seq, prompt_shared_len)
       VALUES ('r.t.0.1', ?, 'policy', 'chat', 'm', 0, ?, ?, 200, NULL, ?, ?, ?, 'stop', 'http://u/v1', 5, 1.5, 2.5, 0, ?, ?)`,
      [
        seq,
        JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(20_000) }] }),
        JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], weight_version: `w${seq}` }),
        ids(prompt),
        ids(completion),
        floats(completion.map(() => -0.25)),
        base,
        shared,
      ],
    );
  await insert(1, [40, 41, 42], [50, 51], null, null, 'one');
  await insert(2, [60], [70], 1, 5, 'two'); // delta: the 5 tokens of call 1's prompt + completion, then 60
  await db.close();
}

describe('schema migration 4: token columns before the request and response', () => {
  it('moves a version-2 store over unchanged: calls, prompt deltas, uniqueness and export', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'of-migrate-'));
    const file = path.join(dir, STORE_FILE);
    await versionTwoStore(file);

    const store = await Store.open(file);
    const calls = await store.listCalls('r.t.0.1');
    expect(calls.map((c) => [c.seq, c.promptTokenIds, c.completionTokenIds, c.logprobs])).toEqual([
      [1, [40, 41, 42], [50, 51], [-0.25, -0.25]],
      [2, [40, 41, 42, 50, 51, 60], [70], [-0.25]],
    ]);
    expect(calls[1]).toMatchObject({
      request: { messages: [{ role: 'user' }] },
      response: { weight_version: 'w2' },
      upstream: 'http://u/v1',
      ttfbMs: 1.5,
      durationMs: 2.5,
    });
    await expect(store.recordCall({ ...calls[1]!, request: {} })).rejects.toThrow(/UNIQUE/);
    await store.close();

    const db = await SqliteDb.open(file);
    expect((await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version).toBe(MIGRATIONS.length);
    const columns = (await db.all<{ name: string }>('PRAGMA table_info(calls)')).map((c) => c.name);
    expect(columns.slice(-2)).toEqual(['response', 'request']);
    expect(columns.indexOf('prompt_ids')).toBeLessThan(columns.indexOf('response'));
    // migration 6: request delta columns, also ahead of the request; old rows hold whole requests
    expect(columns.indexOf('request_base_seq')).toBeLessThan(columns.indexOf('response'));
    expect(columns.indexOf('request_shared_len')).toBeLessThan(columns.indexOf('response'));
    expect(await db.all('SELECT request_base_seq FROM calls WHERE request_base_seq IS NOT NULL')).toEqual([]);
    // the last migration: the words the exporter looks for, noted for the old rows too (the veRL row below needs weight_version)
    expect(columns.indexOf('response_mentions_weight_version')).toBeLessThan(columns.indexOf('response'));
    expect(await db.all('SELECT response_mentions_weight_version AS w, request_piece_mentions_image AS i FROM calls ORDER BY seq')).toEqual([
      { w: 1, i: null },
      { w: 1, i: null },
    ]);
    await db.close();

    const rows = readFileSync((await exportRun(dir, { format: 'verl' })).file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ prompt_ids: [40, 41, 42], response_ids: [50, 51, 60, 70], response_mask: [1, 1, 0, 1], weight_version: 'w2' });
    const sft = readFileSync((await exportRun(dir, { format: 'sft' })).file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(sft[0].messages.at(-1)).toEqual({ role: 'assistant', content: 'two' });
  });
});
