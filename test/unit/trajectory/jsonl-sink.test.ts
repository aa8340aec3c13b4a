import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlSink } from '../../../src/trajectory/jsonl-sink.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('JsonlSink', () => {
  it('writes every row as one line, across chunks, with multi-byte text and a row larger than a chunk', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'of-jsonl-'));
    const file = path.join(dir, 'out.jsonl');
    const rows: unknown[] = [];
    for (let i = 0; i < 3000; i++) rows.push({ i, uid: `tâche-${i}-日本語-🙂`, ids: Array.from({ length: 500 }, (_, j) => i * j), lp: [-0.125, 0, -1e-9] });
    rows.splice(1500, 0, { huge: 'é'.repeat(3_000_000), ids: Array.from({ length: 200_000 }, (_, j) => j) });
    const sink = new JsonlSink<unknown>(file);
    for (const row of rows) await sink.write(row);
    expect(existsSync(file)).toBe(false); // committed by rename on close only
    await sink.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(sink.rows).toBe(rows.length);
    expect(lines.map((l) => JSON.parse(l))).toEqual(rows);
  });

  it('writes each line byte for byte as JSON.stringify does, whatever the values', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'of-jsonl-'));
    const file = path.join(dir, 'out.jsonl');
    const rows: unknown[] = [
      {
        prompt_ids: [0, 7, -1, 2147483647, -2147483648, 2147483648, -0, 1e21, 123456789012],
        response_logprobs: [0, -0.1, -1e-7, 0.30000000000000004, -123.456, Number.NaN, Number.POSITIVE_INFINITY, -5e-324, 1.7976931348623157e308],
        mixed: [1, 'two', null, undefined, { three: [3] }, [4, 5], true],
        empty: [],
        text: 'tâche "quoted" \\ \n 日本語 🙂',
        skipped: undefined,
        nested: { a: [1.5, -2], b: null, c: undefined },
        fn: () => 1,
      },
      [1, 2, 3],
      'a string row',
      42,
      null,
      { toJSON: () => ({ replaced: true }) },
      { when: new Date(0), ids: Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 150_000) }, // larger than a chunk
      { messages: [{ role: 'user', content: 'é'.repeat(2_000_000) }, 1, 0.5], mask: [...Array(100).fill(0), 1, 1, ...Array(30).fill(1), 0] },
    ];
    const sink = new JsonlSink<unknown>(file);
    for (const row of rows) await sink.write(row);
    await sink.close();
    expect(readFileSync(file, 'utf8')).toBe(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

  it('writes typed arrays (how samples hold tokens) as the JSON arrays of their numbers', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'of-jsonl-'));
    const file = path.join(dir, 'out.jsonl');
    const logprobs = [0, 0, -0.1, -0.25, 1, -1e-7, 3e9, 0.30000000000000004, -0, Number.NaN, -5e-324, 1e21, -2, -0.5, Number.NEGATIVE_INFINITY, 1, 1];
    const long = Array.from({ length: 50_000 }, (_, i) => (i % 97 < 40 ? 0 : -((i * 7919) % 100_003) / 9973)); // runs of zeros between runs of decimals
    const rows = [
      {
        prompt_ids: Int32Array.from([
          0, 7, -1, 2147483647, -2147483648, 150_000, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 10_001, 99_999_999, 100_000_000, 1_000_000_007, -10_000,
          -99_999_999,
        ]),
        response_mask: Uint8Array.from([...Array(100).fill(0), 1, 1, 0, 1, 255]),
        response_logprobs: Float64Array.from(logprobs),
        long: Float64Array.from(long),
        empty: new Int32Array(0),
        other: Int16Array.from([-3, 4]),
        call_seqs: [1, 2, 3],
      },
    ];
    const sink = new JsonlSink<unknown>(file);
    for (const row of rows) await sink.write(row);
    await sink.close();
    const plain = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<number>) : v])));
    expect(readFileSync(file, 'utf8')).toBe(plain.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });
});
