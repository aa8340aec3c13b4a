import type { ParquetWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import type { ColumnEncoder, PageData } from 'hyparquet-writer/src/types.js';

type SchemaTree = ReturnType<ReturnType<typeof schemaPathResolver>>[number];
type ColumnChunk = ReturnType<typeof writeColumn>['chunk'];

/** One column of a row group: a value per row; token sequences may be typed arrays. */
export interface RowGroupColumn {
  name: string;
  data: unknown[];
}

/** hyparquet-writer's defaults for `ParquetWriter.write`, which this mirrors. */
const PAGE_SIZE = 1048576;

/**
 * Writes one row group with hyparquet-writer's own column writer, as `writer.write({ columnData,
 * rowGroupSize: rows })` would, byte for byte (a test compares the files). The difference: the
 * Dremel levels of a list<element> column whose lists all hold something are filled into typed
 * arrays here, in one pass per column. The library derives them value by value through a generic
 * recursive walk over plain arrays, which was half of a veRL Parquet export's time and most of its
 * garbage. Other columns, and list columns with an empty list, go through the library's walk.
 */
export function writeRowGroup(parquet: ParquetWriter, columns: RowGroupColumn[], rowCount: number): void | Promise<void> {
  const resolve = schemaPathResolver(parquet.schema);
  const groupStart = parquet.writer.offset;
  const chunks: ColumnChunk[] = [];
  for (const { name, data } of columns) {
    if (data.length !== rowCount) throw new Error(`parquet column ${name} has ${data.length} values for ${rowCount} rows`);
    const leafPath = onlyLeaf(resolve([name]));
    const schemaPath = leafPath.map((node) => node.element);
    const column: ColumnEncoder = {
      columnName: schemaPath
        .slice(1)
        .map((s) => s.name)
        .join('.'),
      element: schemaPath[schemaPath.length - 1]!,
      schemaPath,
      codec: parquet.codec,
      compressors: parquet.compressors,
      stats: parquet.statistics,
      statisticsTruncateLength: parquet.statisticsTruncateLength,
      pageSize: PAGE_SIZE,
      dictionarySize: undefined,
      columnIndex: false,
      offsetIndex: true,
      encoding: undefined,
      bloomFilter: undefined,
    };
    const pageData = isPlainList(leafPath) ? listPageData(data, column.element.type === 'INT32') : undefined;
    const result = writeColumn({ writer: parquet.writer, column, pageData: pageData ?? encodeNestedValues(leafPath, data.map(plainArray)) });
    chunks.push(result.chunk);
    parquet.pendingIndexes.push(result);
  }
  let totalBytes = 0n;
  for (const { meta_data } of chunks) totalBytes += meta_data?.total_uncompressed_size ?? 0n;
  parquet.num_rows += BigInt(rowCount);
  parquet.row_groups.push({
    columns: chunks,
    total_byte_size: totalBytes,
    num_rows: BigInt(rowCount),
    total_compressed_size: BigInt(parquet.writer.offset - groupStart),
  });
  return parquet.writer.flush?.();
}

/** The path from the root to the column's one leaf (every column of the veRL schema has one). */
function onlyLeaf(path: SchemaTree[]): SchemaTree[] {
  let node = path[path.length - 1]!;
  const leafPath = [...path];
  while (node.children.length > 0) {
    if (node.children.length > 1) throw new Error(`parquet column ${path[1]?.element.name} has more than one leaf`);
    node = node.children[0]!;
    leafPath.push(node);
  }
  return leafPath;
}

/** A required list of required numbers: root → name (REQUIRED, LIST) → list (REPEATED) → element (REQUIRED). */
function isPlainList(leafPath: SchemaTree[]): boolean {
  const [, outer, repeated, element] = leafPath.map((node) => node.element);
  return (
    leafPath.length === 4 &&
    outer?.repetition_type === 'REQUIRED' &&
    repeated?.repetition_type === 'REPEATED' &&
    element?.repetition_type === 'REQUIRED' &&
    (element.type === 'INT32' || element.type === 'FLOAT' || element.type === 'DOUBLE')
  );
}

/**
 * Values and levels of a plain list column: definition level 1 for every value, repetition level 0
 * where a row starts and 1 elsewhere. Undefined when a list is empty (that row needs a level of its
 * own, with no value: the library's walk handles it).
 */
function listPageData(lists: unknown[], ints: boolean): PageData | undefined {
  let total = 0;
  for (const list of lists) {
    const length = (list as ArrayLike<number> | null | undefined)?.length ?? 0;
    if (length === 0) return undefined;
    total += length;
  }
  const values = ints ? new Int32Array(total) : new Float64Array(total);
  const repetitionLevels = new Uint8Array(total).fill(1);
  let at = 0;
  for (const list of lists as ArrayLike<number>[]) {
    repetitionLevels[at] = 0;
    values.set(list, at);
    at += list.length;
  }
  // The library only indexes, counts and slices levels and values: typed arrays serve as well as arrays.
  return {
    values,
    definitionLevels: new Uint8Array(total).fill(1) as unknown as number[],
    repetitionLevels: repetitionLevels as unknown as number[],
    maxDefinitionLevel: 1,
  };
}

/** The library's walk takes lists as plain arrays only. */
function plainArray(value: unknown): unknown {
  return ArrayBuffer.isView(value) ? Array.from(value as unknown as ArrayLike<number>) : value;
}
