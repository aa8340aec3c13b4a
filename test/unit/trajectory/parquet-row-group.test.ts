import { parquetReadObjects } from 'hyparquet';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { writeRowGroup } from '../../../src/trajectory/parquet-row-group.js';
import { VERL_PARQUET_COLUMNS, VERL_PARQUET_SCHEMA } from '../../../src/trajectory/verl-parquet-sink.js';
import type { TrajectorySample } from '../../../src/trajectory/types.js';

const COLUMN_NAMES = VERL_PARQUET_COLUMNS;

function sample(i: number, responseLength: number): TrajectorySample {
  const prompt = Int32Array.from({ length: 50 + ((i * 37) % 200) }, (_, k) => (k * 7919 + i) % 151_000);
  const mask = Uint8Array.from({ length: responseLength }, (_, k) => (k % 11 < 4 ? 0 : 1));
  return {
    prompt_ids: prompt,
    response_ids: Int32Array.from({ length: responseLength }, (_, k) => (k * 104_729 + i) % 151_000),
    response_mask: mask,
    response_logprobs: Float64Array.from(mask, (m, k) => (m === 0 ? 0 : -((k * 7 + i) % 1000) / 337)),
    reward_score: i % 4 === 0 ? null : i / 3,
    num_turns: 1 + (i % 5),
    uid: `task-${i % 3}`,
    rollout_id: `r-${i}`,
    segment: i % 2,
    break_reason: i % 2 === 0 ? null : 'history_edited',
    harness: 'forge-agent',
    weight_version: i % 3 === 0 ? null : `v${i}`,
    finish_reason: i % 5 === 0 ? null : 'stop',
    multi_modal_data: i % 6 === 0 ? { image: [`shots/${i}.png`] } : null,
    extra_fields: { call_seqs: [1, 2, 3], simulated: true, excluded_calls: {} },
  } as unknown as TrajectorySample;
}

const cell = (row: TrajectorySample, name: string): unknown => {
  const value = row[name as keyof TrajectorySample];
  return ArrayBuffer.isView(value) ? Array.from(value as unknown as ArrayLike<number>) : value;
};

/** The same rows the library's own way (plain arrays through `ParquetWriter.write`) and through writeRowGroup. */
async function bothWays(groups: TrajectorySample[][]): Promise<[Uint8Array, Uint8Array]> {
  const library = new ByteWriter();
  const libraryWriter = new ParquetWriter({ writer: library, schema: VERL_PARQUET_SCHEMA, createdBy: 'openforge' });
  const ours = new ByteWriter();
  const oursWriter = new ParquetWriter({ writer: ours, schema: VERL_PARQUET_SCHEMA, createdBy: 'openforge' });
  for (const rows of groups) {
    await libraryWriter.write({ columnData: COLUMN_NAMES.map((name) => ({ name, data: rows.map((r) => cell(r, name)) })), rowGroupSize: rows.length });
    await writeRowGroup(
      oursWriter,
      COLUMN_NAMES.map((name) => ({ name, data: rows.map((r) => r[name]) })),
      rows.length,
    );
  }
  await libraryWriter.finish();
  await oursWriter.finish();
  return [library.getBytes(), ours.getBytes()];
}

describe('writeRowGroup', () => {
  it('writes the bytes hyparquet-writer writes for the same rows, over several row groups', async () => {
    const groups = [Array.from({ length: 40 }, (_, i) => sample(i, 30 + ((i * 53) % 400))), Array.from({ length: 7 }, (_, i) => sample(100 + i, 5))];
    const [library, ours] = await bothWays(groups);
    expect(ours.length).toBeGreaterThan(10_000);
    expect(Buffer.from(ours).equals(Buffer.from(library))).toBe(true);
  });

  it('falls back to the library for a row group with an empty list, and the file still reads back', async () => {
    const rows = [sample(1, 20), sample(2, 0), sample(3, 9)];
    const [library, ours] = await bothWays([rows]);
    expect(Buffer.from(ours).equals(Buffer.from(library))).toBe(true);
    const buffer = ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.byteLength) as ArrayBuffer;
    const read = await parquetReadObjects({ file: buffer });
    expect(read.map((r) => (r.response_ids as unknown[]).length)).toEqual([20, 0, 9]);
    expect(read[2]!.response_logprobs).toHaveLength(9);
  });

  it('refuses a column whose length is not the row count', () => {
    const writer = new ParquetWriter({ writer: new ByteWriter(), schema: VERL_PARQUET_SCHEMA });
    expect(() => writeRowGroup(writer, [{ name: 'num_turns', data: [1, 2] }], 3)).toThrow(/num_turns has 2 values for 3 rows/);
  });
});
