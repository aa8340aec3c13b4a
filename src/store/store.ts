import { mkdirSync } from 'node:fs';
export type { StoredCallRow } from './call-rows.js';
import path from 'node:path';
import { decodeFloats, decodeIds } from './codec.js';
import {
  type CallGroupRow,
  GROUPED_FIELDS,
  promptLastUses,
  RequestImages,
  RolloutPrompts,
  RowCompleter,
  STORED_CALL_COLUMNS,
  storedPrompt,
  ungroup,
  type CallRow,
  type StoredCallRow,
} from './call-rows.js';
import { CallWriterThread } from './call-writer-thread.js';
import { CallWriter, type CallWriting } from './call-writer.js';
import { PromptRebuilder } from './prompt-delta.js';
import { isWordChar, RequestRebuilder, type StoredRequest } from './request-delta.js';
import { MIGRATIONS } from './schema.js';
import { ServiceJobs } from './service-jobs.js';
import { CONNECTION_PRAGMAS, SqliteDb } from './sqlite.js';
import type { RecordedCall } from '../records/call.js';
import type { RolloutStatus } from '../records/rollout.js';

export interface RunRecord {
  id: string;
  createdAt: number;
  config: unknown;
  status: 'running' | 'finished' | 'interrupted';
  finishedAt: number | null;
}

export interface RolloutRecord {
  id: string;
  runId: string;
  taskId: string;
  sampleIndex: number;
  attempt: number;
  harness: string;
  status: RolloutStatus | 'abandoned';
  reward: number | null;
  rewardDetails: unknown;
  errorType: string | null;
  errorMessage: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** Milliseconds spent in each lifecycle phase. */
  phases: Record<string, number>;
  /** Set when this rollout replays or forks another one. */
  parent: RolloutParent | null;
  /** Weight versions its first policy call was behind the serving one when it ended; null when not measured. */
  staleness: number | null;
  /** Its staleness passed its `max_staleness`: kept, but out of training samples unless asked for. */
  stale: boolean;
}

/** The rollout a replay or fork was made from; for a fork, `atSeq` is the call whose answer was replaced. */
export interface RolloutParent {
  rolloutId: string;
  kind: 'replay' | 'fork';
  atSeq: number | null;
}

export type RolloutUpdate = Partial<
  Pick<RolloutRecord, 'status' | 'reward' | 'rewardDetails' | 'errorType' | 'errorMessage' | 'startedAt' | 'finishedAt' | 'phases' | 'staleness' | 'stale'>
>;

interface RolloutRow {
  id: string;
  run_id: string;
  task_id: string;
  sample_index: number;
  attempt: number;
  harness: string;
  status: RolloutRecord['status'];
  reward: number | null;
  reward_details: string | null;
  error_type: string | null;
  error_message: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  phases: string | null;
  parent_rollout_id: string | null;
  parent_kind: RolloutParent['kind'] | null;
  fork_seq: number | null;
  staleness: number | null;
  stale: number;
}

const ROLLOUT_COLUMNS: Record<keyof RolloutUpdate, string> = {
  status: 'status',
  reward: 'reward',
  rewardDetails: 'reward_details',
  errorType: 'error_type',
  errorMessage: 'error_message',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  phases: 'phases',
  staleness: 'staleness',
  stale: 'stale',
};

export interface StoreOptions {
  /**
   * How long a recorded call may wait for others to share its INSERT when the writer is idle (see
   * `WriteBatcher`); 0 writes it in the next turn of the event loop. A recording proxy passes
   * `RECORD_LINGER_MS`; `flush` and `close` never wait for it.
   */
  recordLingerMs?: number;
  /**
   * Writes recorded calls on a thread of their own (`CallWriterThread`), so that a recording proxy's
   * serving thread never binds a row, computes a delta or waits for a GC of that work. Ignored for
   * `:memory:`, which another connection cannot open.
   */
  callWriterThread?: boolean;
}

/**
 * The linger a recording proxy's store uses. At an agent loop's pace (a few calls per second per
 * rollout) calls rarely finish in the same event-loop turn, so without it nearly every call was its
 * own transaction: 5 679 transactions for 6 000 calls in a paced bench run, 677 with it.
 */
export const RECORD_LINGER_MS = 50;

/** The store's file name in a run's output folder. */
export const STORE_FILE = 'openforge.db';

/** The run store: one SQLite file (WAL) per run folder holding runs, rollouts, model calls and events. */
export class Store {
  private readonly lostCalls = new Map<string, { seq: number; error: string }[]>();
  /** The rollout service's submitted rollouts and served weight versions. */
  readonly serviceJobs: ServiceJobs;

  private constructor(
    private readonly db: SqliteDb,
    readonly file: string,
    private readonly calls: CallWriting,
  ) {
    this.serviceJobs = new ServiceJobs(db);
  }

  static async open(file: string, options: StoreOptions = {}): Promise<Store> {
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const db = await SqliteDb.open(file);
    // 16 KiB pages (set while the file is empty; a no-op for an existing store): a call row of a long
    // conversation is a few KiB, so 4 KiB pages left much of each page empty and sent more rows to
    // overflow pages. A whole-run export reads 40 % less time in SQLite and the file is a third smaller.
    await db.exec(`PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; ${CONNECTION_PRAGMAS}`);
    const version = (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
    for (let v = version; v < MIGRATIONS.length; v++) {
      await db.exec(`BEGIN; ${MIGRATIONS[v]}; PRAGMA user_version = ${v + 1}; COMMIT;`);
    }
    const lingerMs = options.recordLingerMs ?? 0;
    let onConnection: CallWriter | undefined;
    const callsOnConnection = () => (onConnection ??= new CallWriter(db, lingerMs));
    const calls =
      options.callWriterThread && file !== ':memory:' ? CallWriterThread.start(path.resolve(file), lingerMs, callsOnConnection) : callsOnConnection();
    return new Store(db, file, calls);
  }

  async close(): Promise<void> {
    await this.calls.close();
    await this.db.close();
  }

  // ── runs ──────────────────────────────────────────────────────────────
  async createRun(id: string, config: unknown): Promise<void> {
    await this.db.run('INSERT INTO runs (id, created_at, config, status) VALUES (?, ?, ?, ?)', [id, Date.now(), JSON.stringify(config), 'running']);
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = await this.db.get<{ id: string; created_at: number; config: string; status: RunRecord['status']; finished_at: number | null }>(
      'SELECT * FROM runs WHERE id = ?',
      [id],
    );
    return row && { id: row.id, createdAt: row.created_at, config: JSON.parse(row.config), status: row.status, finishedAt: row.finished_at };
  }

  async latestRun(): Promise<RunRecord | undefined> {
    const row = await this.db.get<{ id: string }>('SELECT id FROM runs ORDER BY created_at DESC LIMIT 1');
    return row && this.getRun(row.id);
  }

  async setRunStatus(id: string, status: RunRecord['status']): Promise<void> {
    await this.db.run('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?', [status, status === 'running' ? null : Date.now(), id]);
  }

  // ── rollouts ──────────────────────────────────────────────────────────
  /** With `ifAbsent`, a rollout id already stored (in any run) is left as it is, and false returned. */
  async addRollout(
    r: Pick<RolloutRecord, 'id' | 'runId' | 'taskId' | 'sampleIndex' | 'attempt' | 'harness'> & { parent?: RolloutParent | null },
    options: { ifAbsent?: boolean } = {},
  ): Promise<boolean> {
    const changes = await this.db.run(
      `INSERT ${options.ifAbsent ? 'OR IGNORE ' : ''}INTO rollouts (id, run_id, task_id, sample_index, attempt, harness, status, created_at, parent_rollout_id, parent_kind, fork_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.id,
        r.runId,
        r.taskId,
        r.sampleIndex,
        r.attempt,
        r.harness,
        'pending',
        Date.now(),
        r.parent?.rolloutId ?? null,
        r.parent?.kind ?? null,
        r.parent?.atSeq ?? null,
      ],
    );
    return changes.changes > 0;
  }

  /** Rollouts replayed or forked from this one, oldest first. */
  async childrenOf(rolloutId: string): Promise<RolloutRecord[]> {
    const rows = await this.db.all<RolloutRow>('SELECT * FROM rollouts WHERE parent_rollout_id = ? ORDER BY created_at, id', [rolloutId]);
    return rows.map(toRollout);
  }

  /** Every run in the store, newest first. */
  async listRuns(): Promise<RunRecord[]> {
    const ids = await this.db.all<{ id: string }>('SELECT id FROM runs ORDER BY created_at DESC, id DESC');
    const runs: RunRecord[] = [];
    for (const { id } of ids) {
      const run = await this.getRun(id);
      if (run) runs.push(run);
    }
    return runs;
  }

  async updateRollout(id: string, update: RolloutUpdate): Promise<void> {
    const keys = Object.keys(update) as (keyof RolloutUpdate)[];
    if (keys.length === 0) return;
    const values = keys.map((k) => {
      const v = update[k];
      if (k === 'stale') return v ? 1 : 0;
      return k === 'rewardDetails' || k === 'phases' ? (v === undefined || v === null ? null : JSON.stringify(v)) : v;
    });
    await this.db.run(`UPDATE rollouts SET ${keys.map((k) => `${ROLLOUT_COLUMNS[k]} = ?`).join(', ')} WHERE id = ?`, [...values, id]);
  }

  async getRollout(id: string): Promise<RolloutRecord | undefined> {
    const row = await this.db.get<RolloutRow>('SELECT * FROM rollouts WHERE id = ?', [id]);
    return row && toRollout(row);
  }

  /** The latest attempt of every (task, sample) slot of a run. */
  async currentRollouts(runId: string): Promise<RolloutRecord[]> {
    const rows = await this.db.all<RolloutRow>(
      `SELECT r.* FROM rollouts r
       JOIN (SELECT task_id, sample_index, MAX(attempt) AS attempt FROM rollouts WHERE run_id = ? GROUP BY task_id, sample_index) latest
         ON r.task_id = latest.task_id AND r.sample_index = latest.sample_index AND r.attempt = latest.attempt
       WHERE r.run_id = ?
       ORDER BY r.task_id, r.sample_index`,
      [runId, runId],
    );
    return rows.map(toRollout);
  }

  // ── calls ─────────────────────────────────────────────────────────────
  /**
   * Records one call. Calls recorded close together are written in one multi-row INSERT (a batch is
   * atomic: all of its rows are stored or none); a failing batch is retried row by row, so one bad
   * row fails alone. Resolves once the row is stored; `flush` and `close` wait for every queued row.
   */
  recordCall(c: RecordedCall): Promise<void> {
    return this.calls.add(c).catch((err: unknown) => {
      const lost = this.lostCalls.get(c.rolloutId) ?? [];
      lost.push({ seq: c.seq, error: err instanceof Error ? err.message : String(err) });
      this.lostCalls.set(c.rolloutId, lost);
      throw err;
    });
  }

  /**
   * The calls of a rollout this store failed to write since it was opened (after `flush`, every failure so
   * far): such a rollout's record is not whole, so it cannot be graded into training data.
   */
  lostRecords(rolloutId: string): readonly { seq: number; error: string }[] {
    return this.lostCalls.get(rolloutId) ?? [];
  }

  /** The proxy's CallSink face. */
  record(call: RecordedCall): Promise<void> {
    return this.recordCall(call);
  }

  /** Policy calls this store has recorded, since it was opened, flagged as having come back without token ids. */
  get policyCallsWithoutTokenIds(): number {
    return this.calls.policyCallsWithoutTokenIds;
  }

  /** Resolves once every call recorded so far is stored. */
  /** The weight version recorded with a rollout's first policy call: null when none was named, undefined when it made none. */
  async firstPolicyCallVersion(rolloutId: string): Promise<string | null | undefined> {
    const row = await this.db.get<{ weight_version: string | null }>(
      "SELECT weight_version FROM calls WHERE rollout_id = ? AND label = 'policy' ORDER BY seq LIMIT 1",
      [rolloutId],
    );
    return row ? row.weight_version : undefined;
  }

  flush(): Promise<void> {
    return this.calls.flushed();
  }

  /** Every call of a rollout in seq order, as recorded: whole prompts and requests. */
  async listCalls(rolloutId: string): Promise<RecordedCall[]> {
    const rows = await this.db.all<CallRow>('SELECT * FROM calls WHERE rollout_id = ? ORDER BY seq', [rolloutId]);
    const prompts = new PromptRebuilder();
    const requests = new RequestRebuilder(lastUses(rows));
    return rows.map((row) => {
      const prompt = prompts.rebuild(storedPrompt(row));
      if (typeof prompt === 'string') throw new Error(`rollout ${rolloutId}, call seq ${row.seq}: ${prompt}`);
      const request = requests.rebuild(storedRequest(row));
      if (typeof request !== 'string') throw new Error(`rollout ${rolloutId}, call seq ${row.seq}: ${request.problem}`);
      return toCall({ ...row, prompt_ids: prompt, request });
    });
  }

  /**
   * The rollout's policy calls that failed at the upstream, not at the harness or the proxy: a 5xx the
   * upstream answered (after the proxy's retries), the proxy's 502/504 for an upstream it could not reach or
   * that timed out, and streams the upstream cut.
   */
  async upstreamFailures(rolloutId: string): Promise<{ seq: number; status: number; error: string | null }[]> {
    return this.db.all<{ seq: number; status: number; error: string | null }>(
      `SELECT seq, status, error FROM calls WHERE rollout_id = ? AND label = 'policy'
         AND ((status >= 500 AND status < 600 AND (error IS NULL OR error NOT LIKE 'proxy error%')) OR error LIKE 'upstream stream failed%')
       ORDER BY seq`,
      [rolloutId],
    );
  }

  async countCalls(rolloutIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (rolloutIds.length === 0) return counts;
    const rows = await this.db.all<{ rollout_id: string; n: number }>(
      `SELECT rollout_id, COUNT(*) AS n FROM calls WHERE rollout_id IN (${rolloutIds.map(() => '?').join(',')}) GROUP BY rollout_id`,
      rolloutIds,
    );
    for (const r of rows) counts.set(r.rollout_id, r.n);
    return counts;
  }

  /** Calls recorded for the run, every attempt of every rollout. */
  async countRunCalls(runId: string): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE rollout_id IN (SELECT id FROM rollouts WHERE run_id = ?)', [runId]);
    return row?.n ?? 0;
  }

  // ── events ────────────────────────────────────────────────────────────
  async addEvent(rolloutId: string, kind: string, message: string): Promise<void> {
    await this.db.run('INSERT INTO events (rollout_id, ts, kind, message) VALUES (?, ?, ?, ?)', [rolloutId, Date.now(), kind, message]);
  }

  async listEvents(rolloutId: string): Promise<{ ts: number; kind: string; message: string }[]> {
    return this.db.all('SELECT ts, kind, message FROM events WHERE rollout_id = ? ORDER BY id', [rolloutId]);
  }

  // ── streaming reads (trajectory export) ───────────────────────────────
  /** Ids of the runs in the store, oldest first. */
  async runIds(): Promise<string[]> {
    return (await this.db.all<{ id: string }>('SELECT id FROM runs ORDER BY created_at, id')).map((r) => r.id);
  }

  /**
   * The calls of one rollout in seq order, a page of up to `pageSize` rows at a time so memory stays
   * flat however many calls a rollout has (pages rather than rows: a whole run goes through here, and
   * every step of an async iteration has a cost). Blobs are left undecoded, and the request and
   * response out (see `callRequestJson`, `callResponseJson`). For many short rollouts, `callsOfRollouts`
   * reads them in one query.
   */
  async *callPagesOf(rolloutId: string, pageSize = 256): AsyncGenerator<StoredCallRow[]> {
    let completer: RowCompleter | undefined;
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const rows = await this.db.all<StoredCallRow>(`SELECT ${STORED_CALL_COLUMNS} FROM calls WHERE rollout_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [
        rolloutId,
        after,
        pageSize,
      ]);
      if (!completer) {
        // Which rows later rows build on: from the page itself when it holds the whole rollout.
        let lastUse: Map<number, number>;
        if (rows.length < pageSize) lastUse = promptLastUses(rows);
        else {
          const uses = await this.db.all<{ base: number; last: number }>(
            'SELECT prompt_base_seq AS base, MAX(seq) AS last FROM calls WHERE rollout_id = ? AND prompt_base_seq IS NOT NULL GROUP BY prompt_base_seq',
            [rolloutId],
          );
          lastUse = new Map(uses.map((u) => [u.base, u.last]));
        }
        completer = new RowCompleter(lastUse);
      }
      for (const row of rows) completer.complete(row);
      if (rows.length > 0) yield rows;
      const last = rows[rows.length - 1];
      if (!last || rows.length < pageSize) return;
      after = last.seq;
    }
  }

  /**
   * Every call of several rollouts, read in one query: rows as `callPagesOf` gives them, by rollout
   * id, each list in seq order. SQLite hands over one row per rollout (its calls' small fields as one
   * JSON array, each blob column concatenated), which costs a fraction of a row per call: the driver
   * spends more on making each row and each blob an object than SQLite spends reading it. All of them
   * are in memory at once: callers group rollouts by `countCalls`.
   */
  async callsOfRollouts(rolloutIds: readonly string[]): Promise<Map<string, StoredCallRow[]>> {
    const byRollout = new Map<string, StoredCallRow[]>();
    if (rolloutIds.length === 0) return byRollout;
    let groups: CallGroupRow[];
    try {
      groups = await this.db.all<CallGroupRow>(
        // No ORDER BY inside the aggregates (a sort per group): every aggregate sees the rows in the same
        // order, the index's, and `ungroup` sorts them by seq should that ever differ.
        `SELECT rollout_id, json_group_array(json_array(${GROUPED_FIELDS.join(', ')})) AS fields,
           CAST(group_concat(completion_ids, '') AS BLOB) AS completion_ids,
           CAST(group_concat(logprobs, '') AS BLOB) AS logprobs,
           CAST(group_concat(prompt_ids, '') AS BLOB) AS prompt_ids
       FROM calls WHERE rollout_id IN (${rolloutIds.map(() => '?').join(',')}) GROUP BY rollout_id`,
        rolloutIds as string[],
      );
    } catch {
      // a damaged row (a blob where text belongs cannot go into JSON): read row by row, where each row is checked
      for (const id of rolloutIds) {
        const rows: StoredCallRow[] = [];
        for await (const page of this.callPagesOf(id)) rows.push(...page);
        if (rows.length > 0) byRollout.set(id, rows);
      }
      return byRollout;
    }
    for (const group of groups) {
      const rows = ungroup(group);
      // whole prompts are rebuilt only when asked for: the trajectory builder mostly merges by the stored delta
      const prompts = new RolloutPrompts(rows);
      const images = new RequestImages();
      for (const row of rows) {
        row.stored_prompt_ids = row.prompt_ids;
        if (row.prompt_base_seq !== null) row.whole_prompt = () => prompts.whole(row.seq);
        images.complete(row);
      }
      byRollout.set(group.rollout_id, rows);
    }
    return byRollout;
  }

  /** The response of one call as stored (JSON text, or null when it had none); undefined when there is no such call. */
  async callResponseJson(rolloutId: string, seq: number): Promise<string | null | undefined> {
    return (await this.db.get<{ response: string | null }>('SELECT response FROM calls WHERE rollout_id = ? AND seq = ?', [rolloutId, seq]))?.response;
  }

  /**
   * The request body of one call as recorded (JSON text), rebuilt from its delta chain; undefined when
   * there is no such call. With `containing` (letters, digits and `_` only), null unless the text
   * contains it: tested first on the stored pieces in SQLite, so that requests without it are never
   * copied out (a word never spans the cut between two pieces: see `sharedPrefixLength`).
   */
  async callRequestJson(rolloutId: string, seq: number, containing?: string): Promise<string | null | undefined> {
    if (containing !== undefined) {
      if (containing.length === 0 || ![...containing].every((ch) => isWordChar(ch.charCodeAt(0)))) {
        throw new Error(`callRequestJson: "${containing}" is not a word (letters, digits and _ only)`);
      }
      const hit = await this.db.get<{ calls: number; hit: number | null }>(
        `WITH RECURSIVE ${REQUEST_CHAIN} SELECT COUNT(*) AS calls, MAX(instr(c.request, ?3)) AS hit FROM chain JOIN calls c ON c.rollout_id = ?1 AND c.seq = chain.seq`,
        [rolloutId, seq, containing],
      );
      if (!hit || hit.calls === 0) return undefined;
      if (!hit.hit) return null;
    }
    const rows = await this.db.all<Pick<CallRow, 'seq' | 'request' | 'request_base_seq' | 'request_shared_len'>>(
      `WITH RECURSIVE ${REQUEST_CHAIN}
       SELECT c.seq, c.request_base_seq, c.request_shared_len, c.request FROM chain JOIN calls c ON c.rollout_id = ?1 AND c.seq = chain.seq ORDER BY c.seq`,
      [rolloutId, seq],
    );
    if (rows.length === 0 || rows[rows.length - 1]!.seq !== seq) return undefined;
    const requests = new RequestRebuilder();
    let text: string | { problem: string } = '';
    for (const row of rows) text = requests.rebuild(storedRequest(row));
    if (typeof text !== 'string') throw new Error(`rollout ${rolloutId}, call seq ${seq}: ${text.problem}`);
    if (containing !== undefined && !text.includes(containing)) return null;
    return text;
  }
}

function toRollout(row: RolloutRow): RolloutRecord {
  return {
    id: row.id,
    runId: row.run_id,
    taskId: row.task_id,
    sampleIndex: row.sample_index,
    attempt: row.attempt,
    harness: row.harness,
    status: row.status,
    reward: row.reward,
    rewardDetails: row.reward_details ? JSON.parse(row.reward_details) : null,
    errorType: row.error_type,
    errorMessage: row.error_message,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    phases: row.phases ? JSON.parse(row.phases) : {},
    parent: row.parent_rollout_id ? { rolloutId: row.parent_rollout_id, kind: row.parent_kind ?? 'replay', atSeq: row.fork_seq } : null,
    staleness: row.staleness ?? null,
    stale: row.stale === 1,
  };
}

function toCall(row: CallRow): RecordedCall {
  return {
    rolloutId: row.rollout_id,
    seq: row.seq,
    label: row.label,
    protocol: row.protocol,
    model: row.model,
    stream: row.stream === 1,
    request: JSON.parse(row.request),
    response: row.response === null ? null : JSON.parse(row.response),
    status: row.status,
    error: row.error,
    promptTokenIds: decodeIds(row.prompt_ids),
    completionTokenIds: decodeIds(row.completion_ids),
    logprobs: decodeFloats(row.logprobs),
    finishReason: row.finish_reason,
    upstream: row.upstream,
    startedAt: row.started_at,
    ttfbMs: row.ttfb_ms,
    durationMs: row.duration_ms,
    missingTokenIds: row.missing_token_ids === 1,
    ...(row.token_mode === 'token_in' ? { tokenMode: row.token_mode } : {}),
    ...(row.family !== null ? { family: row.family } : {}),
    ...(row.weight_version !== null ? { weightVersion: row.weight_version } : {}),
  };
}

/**
 * `chain(seq)`: call ?2 of rollout ?1 and the calls its request is a delta of, down to one stored whole.
 * A base must have a smaller seq, so a damaged row cannot make the walk loop.
 */
const REQUEST_CHAIN = `chain(seq) AS (
  SELECT ?2
  UNION ALL
  SELECT c.request_base_seq FROM calls c JOIN chain ON c.rollout_id = ?1 AND c.seq = chain.seq
  WHERE c.request_base_seq IS NOT NULL AND c.request_base_seq < c.seq
)`;

function storedRequest(row: Pick<CallRow, 'seq' | 'request' | 'request_base_seq' | 'request_shared_len'>): StoredRequest {
  return { seq: row.seq, text: row.request, baseSeq: row.request_base_seq ?? null, sharedLen: row.request_shared_len ?? null };
}

/** Base seq → the seq of the last row whose request refers to it, from rows in seq order. */
function lastUses(rows: Pick<CallRow, 'seq' | 'request_base_seq'>[]): Map<number, number> {
  const uses = new Map<number, number>();
  for (const row of rows) if (row.request_base_seq !== null && row.request_base_seq !== undefined) uses.set(row.request_base_seq, row.seq);
  return uses;
}
