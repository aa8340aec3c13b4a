import { fileWriter, ParquetWriter } from 'hyparquet-writer';
import { AtomicFile } from './atomic-file.js';
import { writeRowGroup } from './parquet-row-group.js';
import type { VerlRow } from './verl-images.js';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];
type ColumnKind = 'int32-list' | 'float-list' | 'double' | 'int32' | 'string' | 'json';

/** veRL rows as Parquet columns: token sequences as list<int32>, logprobs as list<float> (float32, veRL's dtype). */
const COLUMNS: [keyof VerlRow, ColumnKind, 'REQUIRED' | 'OPTIONAL'][] = [
  ['prompt_ids', 'int32-list', 'REQUIRED'],
  ['response_ids', 'int32-list', 'REQUIRED'],
  ['response_mask', 'int32-list', 'REQUIRED'],
  ['response_logprobs', 'float-list', 'REQUIRED'],
  ['reward_score', 'double', 'OPTIONAL'],
  ['num_turns', 'int32', 'REQUIRED'],
  ['uid', 'string', 'REQUIRED'],
  ['rollout_id', 'string', 'REQUIRED'],
  ['segment', 'int32', 'REQUIRED'],
  ['break_reason', 'string', 'OPTIONAL'],
  ['harness', 'string', 'REQUIRED'],
  ['weight_version', 'string', 'OPTIONAL'],
  ['finish_reason', 'string', 'OPTIONAL'],
  ['multi_modal_data', 'json', 'OPTIONAL'],
  ['extra_fields', 'json', 'REQUIRED'],
];

function schemaOf(name: string, kind: ColumnKind, repetition_type: 'REQUIRED' | 'OPTIONAL'): SchemaElement[] {
  switch (kind) {
    case 'int32-list':
    case 'float-list':
      return [
        { name, repetition_type, converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: kind === 'int32-list' ? 'INT32' : 'FLOAT', repetition_type: 'REQUIRED' },
      ];
    case 'double':
      return [{ name, type: 'DOUBLE', repetition_type }];
    case 'int32':
      return [{ name, type: 'INT32', repetition_type }];
    case 'string':
      return [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type }];
    case 'json':
      return [{ name, type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type }];
  }
}

/** The top-level columns, in the file's order. */
export const VERL_PARQUET_COLUMNS: readonly (keyof VerlRow)[] = COLUMNS.map(([name]) => name);

export const VERL_PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: COLUMNS.length },
  ...COLUMNS.flatMap(([name, kind, repetition]) => schemaOf(name, kind, repetition)),
];

export interface ParquetSinkOptions {
  /** A row group is written once it holds this many rows … */
  rowGroupRows?: number;
  /** … or this many tokens (prompt + response), whichever comes first: memory is bounded by one row group. */
  rowGroupTokens?: number;
}

/** Inline images (base64) a row group holds at most before it is written, so screenshots do not pile up in memory. */
const ROW_GROUP_IMAGE_CHARS = 64 << 20;

/**
 * veRL samples written to Parquet a row group at a time: memory holds at most one row group,
 * however many samples the run has. Committed by rename on close.
 */
export class VerlParquetSink {
  private readonly file: AtomicFile;
  private readonly writer: ParquetWriter;
  private readonly rowGroupRows: number;
  private readonly rowGroupTokens: number;
  private buffered: VerlRow[] = [];
  private bufferedTokens = 0;
  private bufferedImageChars = 0;
  rows = 0;

  constructor(finalPath: string, options: ParquetSinkOptions = {}) {
    this.file = new AtomicFile(finalPath);
    this.rowGroupRows = options.rowGroupRows ?? 1000;
    this.rowGroupTokens = options.rowGroupTokens ?? 250_000;
    this.writer = new ParquetWriter({ writer: fileWriter(this.file.tempPath), schema: VERL_PARQUET_SCHEMA, createdBy: 'openforge' });
  }

  async write(sample: VerlRow): Promise<void> {
    this.buffered.push(sample);
    this.bufferedTokens += sample.prompt_ids.length + sample.response_ids.length;
    for (const image of sample.multi_modal_data?.image ?? []) this.bufferedImageChars += image.image.length;
    this.rows++;
    if (this.buffered.length >= this.rowGroupRows || this.bufferedTokens >= this.rowGroupTokens || this.bufferedImageChars >= ROW_GROUP_IMAGE_CHARS)
      await this.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.writer.finish();
    this.file.commit();
  }

  async abort(): Promise<void> {
    this.buffered = [];
    this.file.discard();
  }

  private async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    const rows = this.buffered;
    this.buffered = [];
    this.bufferedTokens = 0;
    this.bufferedImageChars = 0;
    await writeRowGroup(
      this.writer,
      VERL_PARQUET_COLUMNS.map((name) => ({ name, data: rows.map((row) => row[name]) })),
      rows.length,
    );
  }
}
