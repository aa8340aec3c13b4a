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
});
