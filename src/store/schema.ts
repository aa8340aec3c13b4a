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
];
