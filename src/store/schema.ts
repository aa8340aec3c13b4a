/**
 * Schema migrations, applied in order; PRAGMA user_version holds how many ran.
 * Append new migrations; never edit one that has shipped.
 */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    finished_at INTEGER
  );
  CREATE TABLE rollouts (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    task_id TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    harness TEXT NOT NULL,
    status TEXT NOT NULL,
    reward REAL,
    reward_details TEXT,
    error_type TEXT,
    error_message TEXT,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    phases TEXT,
    UNIQUE (run_id, task_id, sample_index, attempt)
  );
  CREATE INDEX rollouts_run ON rollouts(run_id, task_id, sample_index);
  CREATE TABLE calls (
    id INTEGER PRIMARY KEY,
    rollout_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    label TEXT NOT NULL,
    protocol TEXT NOT NULL,
    model TEXT NOT NULL,
    stream INTEGER NOT NULL,
    request TEXT NOT NULL,
    response TEXT,
    status INTEGER NOT NULL,
    error TEXT,
    prompt_ids BLOB,
    completion_ids BLOB,
    logprobs BLOB,
    finish_reason TEXT,
    upstream TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ttfb_ms REAL,
    duration_ms REAL NOT NULL,
    missing_token_ids INTEGER NOT NULL,
    UNIQUE (rollout_id, seq)
  );
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    rollout_id TEXT NOT NULL,
    ts INTEGER NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL
  );
  CREATE INDEX events_rollout ON events(rollout_id);
  `,
  // Delta storage of prompt ids (see prompt-delta.ts): a row with prompt_base_seq set keeps in prompt_ids
  // only the tokens after the first prompt_shared_len tokens of that call's prompt + completion.
  `
  ALTER TABLE calls ADD COLUMN prompt_base_seq INTEGER;
  ALTER TABLE calls ADD COLUMN prompt_shared_len INTEGER;
  `,
  // Replays and forks (`openforge replay`, `openforge fork`): a rollout re-run from another one links to it.
  // parent_kind is 'replay' or 'fork'; fork_seq is the call whose answer the fork replaced.
  `
  ALTER TABLE rollouts ADD COLUMN parent_rollout_id TEXT;
  ALTER TABLE rollouts ADD COLUMN parent_kind TEXT;
  ALTER TABLE rollouts ADD COLUMN fork_seq INTEGER;
  CREATE INDEX rollouts_parent ON rollouts(parent_rollout_id);
  `,
  // Column order for the trajectory export: SQLite reads a row's columns from the front, through the
  // overflow pages of every column before the last one asked for. The request (the whole conversation,
  // by far the largest value) and the response go last, so that reading token ids never reads them.
  `
  CREATE TABLE calls_by_size (
    id INTEGER PRIMARY KEY,
    rollout_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    label TEXT NOT NULL,
    protocol TEXT NOT NULL,
    model TEXT NOT NULL,
    stream INTEGER NOT NULL,
    status INTEGER NOT NULL,
    error TEXT,
    finish_reason TEXT,
    missing_token_ids INTEGER NOT NULL,
    prompt_base_seq INTEGER,
    prompt_shared_len INTEGER,
    completion_ids BLOB,
    logprobs BLOB,
    prompt_ids BLOB,
    upstream TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ttfb_ms REAL,
    duration_ms REAL NOT NULL,
    response TEXT,
    request TEXT NOT NULL,
    UNIQUE (rollout_id, seq)
  );
  INSERT INTO calls_by_size (id, rollout_id, seq, label, protocol, model, stream, status, error, finish_reason, missing_token_ids,
    prompt_base_seq, prompt_shared_len, completion_ids, logprobs, prompt_ids, upstream, started_at, ttfb_ms, duration_ms, response, request)
  SELECT id, rollout_id, seq, label, protocol, model, stream, status, error, finish_reason, missing_token_ids,
    prompt_base_seq, prompt_shared_len, completion_ids, logprobs, prompt_ids, upstream, started_at, ttfb_ms, duration_ms, response, request
  FROM calls;
  DROP TABLE calls;
  ALTER TABLE calls_by_size RENAME TO calls;
  `,
  // Delta storage of requests (see request-delta.ts): a row with request_base_seq set keeps in request only
  // the text after the first request_shared_len characters of that call's request. The table is rebuilt
  // so that the new columns sit before response and request (see the migration before): following a
  // chain of bases then never reads through the requests themselves.
  `
  CREATE TABLE calls_with_request_deltas (
    id INTEGER PRIMARY KEY,
    rollout_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    label TEXT NOT NULL,
    protocol TEXT NOT NULL,
    model TEXT NOT NULL,
    stream INTEGER NOT NULL,
    status INTEGER NOT NULL,
    error TEXT,
    finish_reason TEXT,
    missing_token_ids INTEGER NOT NULL,
    prompt_base_seq INTEGER,
    prompt_shared_len INTEGER,
    request_base_seq INTEGER,
    request_shared_len INTEGER,
    completion_ids BLOB,
    logprobs BLOB,
    prompt_ids BLOB,
    upstream TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ttfb_ms REAL,
    duration_ms REAL NOT NULL,
    response TEXT,
    request TEXT NOT NULL,
    UNIQUE (rollout_id, seq)
  );
  INSERT INTO calls_with_request_deltas (id, rollout_id, seq, label, protocol, model, stream, status, error, finish_reason, missing_token_ids,
    prompt_base_seq, prompt_shared_len, completion_ids, logprobs, prompt_ids, upstream, started_at, ttfb_ms, duration_ms, response, request)
  SELECT id, rollout_id, seq, label, protocol, model, stream, status, error, finish_reason, missing_token_ids,
    prompt_base_seq, prompt_shared_len, completion_ids, logprobs, prompt_ids, upstream, started_at, ttfb_ms, duration_ms, response, request
  FROM calls;
  DROP TABLE calls;
  ALTER TABLE calls_with_request_deltas RENAME TO calls;
  `,
  // Two words the exporter looks for before reading a text, noted when the call is stored (a scan of
  // every response and request piece with instr() was a third of a whole-run export's SQLite time):
  // `weight_version` in the response, `image` in the stored request piece (null: not known, the
  // request is read). Placed before the texts, as the columns above; existing rows are scanned once here.
  rebuildCalls('calls_with_word_flags', {
    response_mentions_weight_version: `instr(response, 'weight_version') > 0`,
    request_piece_mentions_image: `CASE WHEN request_shared_len IS NOT NULL THEN instr(request, 'image') > 0 END`,
  }),
  // How the prompt reached the engine ('chat', or 'token_in': ids the proxy kept) and the model family that
  // rendered and parsed it (null: not known). Placed before the texts, as the columns above.
  rebuildCalls(
    'calls_with_token_mode',
    { token_mode: `'chat'`, family: 'NULL' },
    {
      earlier: ['response_mentions_weight_version INTEGER', 'request_piece_mentions_image INTEGER'],
      types: { token_mode: `TEXT NOT NULL DEFAULT 'chat'`, family: 'TEXT' },
    },
  ),
  // The policy weight version current at the proxy when the engine answered (null: none was set), so that
  // a sample never mixes two versions. Placed before the texts, as the columns above.
  rebuildCalls(
    'calls_with_weight_version',
    { weight_version: 'NULL' },
    {
      earlier: ['response_mentions_weight_version INTEGER', 'request_piece_mentions_image INTEGER', `token_mode TEXT NOT NULL DEFAULT 'chat'`, 'family TEXT'],
      types: { weight_version: 'TEXT' },
    },
  ),
  // Async RL: how many weight updates the rollout's first policy call was behind the serving weights when it
  // ended (null: not measured), and whether that passed its `max_staleness` (kept, out of samples).
  `
  ALTER TABLE rollouts ADD COLUMN staleness INTEGER;
  ALTER TABLE rollouts ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;
  `,
  // The rollout service's submitted rollouts and the weight versions it served, so that a service killed
  // and started again on the same store carries on (service-jobs.ts). A job's rollout_id is the attempt
  // (rollouts.id) its result comes from; seq is the order of submission, the queue's order.
  `
  CREATE TABLE service_jobs (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    group_uid TEXT NOT NULL,
    task_id TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    request TEXT NOT NULL,
    status TEXT NOT NULL,
    weight_version TEXT,
    rollout_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    restarts INTEGER NOT NULL DEFAULT 0,
    reward REAL,
    error_type TEXT,
    error_message TEXT,
    staleness INTEGER,
    stale INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    ended_at INTEGER,
    UNIQUE (run_id, task_id, sample_index)
  );
  CREATE INDEX service_jobs_run ON service_jobs(run_id, seq);
  CREATE INDEX service_jobs_group ON service_jobs(group_uid);
  CREATE TABLE service_weight_versions (
    run_id TEXT NOT NULL REFERENCES runs(id),
    ord INTEGER NOT NULL,
    version TEXT NOT NULL,
    PRIMARY KEY (run_id, ord)
  );
  `,
];

/**
 * The calls table rebuilt with extra columns before the texts, filled for the existing rows by the
 * given SQL expressions; every other column keeps its place and value. `earlier` are the columns earlier
 * rebuilds added (kept after the fixed ones), `types` the new columns' types (INTEGER when not given).
 */
function rebuildCalls(table: string, added: Record<string, string>, options: { earlier?: string[]; types?: Record<string, string> } = {}): string {
  const head = [
    'id INTEGER PRIMARY KEY',
    'rollout_id TEXT NOT NULL',
    'seq INTEGER NOT NULL',
    'label TEXT NOT NULL',
    'protocol TEXT NOT NULL',
    'model TEXT NOT NULL',
    'stream INTEGER NOT NULL',
    'status INTEGER NOT NULL',
    'error TEXT',
    'finish_reason TEXT',
    'missing_token_ids INTEGER NOT NULL',
    'prompt_base_seq INTEGER',
    'prompt_shared_len INTEGER',
    'request_base_seq INTEGER',
    'request_shared_len INTEGER',
  ];
  const tail = [
    'completion_ids BLOB',
    'logprobs BLOB',
    'prompt_ids BLOB',
    'upstream TEXT NOT NULL',
    'started_at INTEGER NOT NULL',
    'ttfb_ms REAL',
    'duration_ms REAL NOT NULL',
    'response TEXT',
    'request TEXT NOT NULL',
  ];
  const earlier = options.earlier ?? [];
  const kept = [...head, ...earlier, ...tail].map((column) => column.split(' ')[0]!);
  return `
  CREATE TABLE ${table} (
    ${[...head, ...earlier, ...Object.keys(added).map((name) => `${name} ${options.types?.[name] ?? 'INTEGER'}`), ...tail, 'UNIQUE (rollout_id, seq)'].join(',\n    ')}
  );
  INSERT INTO ${table} (${[...kept, ...Object.keys(added)].join(', ')})
  SELECT ${[...kept, ...Object.values(added)].join(', ')} FROM calls;
  DROP TABLE calls;
  ALTER TABLE ${table} RENAME TO calls;
  `;
}
