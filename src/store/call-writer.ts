import { encodeFloats, encodeIds } from './codec.js';
import { PromptDeltaWriter, type PromptDelta } from './prompt-delta.js';
import { RequestDeltaWriter, type RequestDelta } from './request-delta.js';
import type { SqliteDb } from './sqlite.js';
import type { RecordedCall } from '../records/call.js';
import { WriteBatcher } from './write-batcher.js';

/** Where recorded calls go: the store's own connection, or a thread of their own (`CallWriterThread`). */
export interface CallWriting {
  /** Resolves once the row is stored, or rejects with that row's own error. */
  add(call: RecordedCall): Promise<void>;
  /** Resolves once every call added so far is stored (or has failed). */
  flushed(): Promise<void>;
  close(): Promise<void>;
  /** Policy calls stored so far flagged as having come back without token ids: no training data in them. */
  readonly policyCallsWithoutTokenIds: number;
}

const CALL_INSERT_COLUMNS = [
  'rollout_id',
  'seq',
  'label',
  'protocol',
  'model',
  'stream',
  'request',
  'response',
  'status',
  'error',
  'prompt_ids',
  'completion_ids',
  'logprobs',
  'finish_reason',
  'upstream',
  'started_at',
  'ttfb_ms',
  'duration_ms',
  'missing_token_ids',
  'prompt_base_seq',
  'prompt_shared_len',
  'request_base_seq',
  'request_shared_len',
  'response_mentions_weight_version',
  'request_piece_mentions_image',
  'token_mode',
  'family',
  'weight_version',
] as const;
/** Rows per INSERT: 64 × 28 parameters stays far below SQLite's limit of 32 766. */
const MAX_CALLS_PER_INSERT = 64;
const insertSqlByRows = new Map<number, string>();

function insertCallsSql(rows: number): string {
  let sql = insertSqlByRows.get(rows);
  if (!sql) {
    const row = `(${CALL_INSERT_COLUMNS.map(() => '?').join(', ')})`;
    sql = `INSERT INTO calls (${CALL_INSERT_COLUMNS.join(', ')}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
    insertSqlByRows.set(rows, sql);
  }
  return sql;
}

/** The request as the harness sent it when its text is known. */
function requestText(c: RecordedCall): string {
  return c.requestJson ?? JSON.stringify(c.request);
}

/** One row's parameters, in CALL_INSERT_COLUMNS order. */
function callParams(c: RecordedCall, request: string, delta: PromptDelta | undefined, requestDelta: RequestDelta | undefined): unknown[] {
  const response = c.responseJson ?? (c.response === null || c.response === undefined ? null : JSON.stringify(c.response));
  const piece = requestDelta ? requestDelta.suffix : request;
  return [
    c.rolloutId,
    c.seq,
    c.label,
    c.protocol,
    c.model,
    c.stream ? 1 : 0,
    piece,
    response,
    c.status,
    c.error,
    encodeIds(delta ? delta.suffix : c.promptTokenIds),
    encodeIds(c.completionTokenIds),
    encodeFloats(c.logprobs),
    c.finishReason,
    c.upstream,
    c.startedAt,
    c.ttfbMs,
    c.durationMs,
    c.missingTokenIds ? 1 : 0,
    delta?.baseSeq ?? null,
    delta?.sharedLen ?? null,
    requestDelta?.baseSeq ?? null,
    requestDelta?.sharedLen ?? 0,
    response?.includes('weight_version') ? 1 : 0,
    piece.includes('image') ? 1 : 0,
    c.tokenMode ?? 'chat',
    c.family ?? null,
    c.weightVersion ?? null,
  ];
}

/**
 * Writes recorded calls into the `calls` table over one connection: batched multi-row INSERTs (see
 * `WriteBatcher`), prompts and requests stored as deltas of the rollout's earlier calls. The deltas'
 * memory of earlier calls lives here, so one writer (one connection) must write all of a store's calls.
 */
export class CallWriter implements CallWriting {
  private readonly promptDeltas = new PromptDeltaWriter();
  private readonly requestDeltas = new RequestDeltaWriter();
  private readonly writes: WriteBatcher<RecordedCall>;
  policyCallsWithoutTokenIds = 0;

  constructor(
    private readonly db: SqliteDb,
    lingerMs: number,
  ) {
    this.writes = new WriteBatcher<RecordedCall>((calls) => this.writeCalls(calls), MAX_CALLS_PER_INSERT, lingerMs);
  }

  add(call: RecordedCall): Promise<void> {
    return this.writes.add(call);
  }

  flushed(): Promise<void> {
    return this.writes.flushed();
  }

  /** Writes what is queued; the connection stays its owner's to close. */
  close(): Promise<void> {
    return this.writes.flushed();
  }

  private async writeCalls(calls: RecordedCall[]): Promise<(unknown | undefined)[]> {
    const rows: unknown[] = [];
    const requests = calls.map(requestText);
    // Deltas may refer to rows of the same batch: the INSERT stores all of them or none.
    calls.forEach((c, i) => rows.push(...callParams(c, requests[i]!, this.compactPrompt(c), this.compactRequest(c, requests[i]!))));
    try {
      await this.db.runPrepared(insertCallsSql(calls.length), rows);
      for (const c of calls) this.countStored(c);
      return calls.map(() => undefined);
    } catch (err) {
      for (const c of calls) {
        if (c.promptTokenIds) this.promptDeltas.forget(c.rolloutId, c.seq);
        this.requestDeltas.forget(c.rolloutId, c.seq);
      }
      if (calls.length === 1) return [err];
    }
    // Row by row, so that only the bad rows fail; whole prompts and requests, as a base row may be among them.
    const results: (unknown | undefined)[] = [];
    for (const [i, c] of calls.entries()) {
      try {
        await this.db.runPrepared(insertCallsSql(1), callParams(c, requests[i]!, undefined, undefined));
        if (c.promptTokenIds) this.promptDeltas.remember(c.rolloutId, c.seq, c.promptTokenIds, c.completionTokenIds);
        this.requestDeltas.remember(c.rolloutId, c.seq, requests[i]!);
        this.countStored(c);
        results.push(undefined);
      } catch (err) {
        results.push(err);
      }
    }
    return results;
  }

  private countStored(c: RecordedCall): void {
    if (c.label === 'policy' && c.missingTokenIds) this.policyCallsWithoutTokenIds++;
  }

  private compactPrompt(c: RecordedCall): PromptDelta | undefined {
    if (!c.promptTokenIds) return undefined;
    const delta = this.promptDeltas.compact(c.rolloutId, c.seq, c.promptTokenIds);
    this.promptDeltas.remember(c.rolloutId, c.seq, c.promptTokenIds, c.completionTokenIds);
    return delta;
  }

  private compactRequest(c: RecordedCall, text: string): RequestDelta | undefined {
    const delta = this.requestDeltas.compact(c.rolloutId, c.seq, text);
    this.requestDeltas.remember(c.rolloutId, c.seq, text);
    return delta;
  }
}
