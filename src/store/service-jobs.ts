import type { SqliteDb } from './sqlite.js';

/** Where a submitted rollout of the rollout service stands (GET /v1/rollouts/:id `status`). */
export type ServiceJobStatus = 'queued' | 'running' | 'finished' | 'error' | 'cancelled';

/** One rollout submitted to `openforge serve`, as the store keeps it across a restart of the service. */
export interface ServiceJobRecord {
  id: string;
  runId: string;
  /** Order of submission within the run: the queue's order. */
  seq: number;
  group: string;
  taskId: string;
  sampleIndex: number;
  /** The validated POST /v1/rollouts body it came from. */
  request: unknown;
  status: ServiceJobStatus;
  /** The request's weight version, as text. */
  weightVersion: string | null;
  /** The attempt (rollouts.id) its result comes from, once it ended after running. */
  rolloutId: string | null;
  attempts: number;
  /** Times a service was killed while it ran, and a restarted one ran it again. */
  restarts: number;
  reward: number | null;
  errorType: string | null;
  errorMessage: string | null;
  staleness: number | null;
  stale: boolean;
}

export type ServiceJobUpdate = Partial<
  Pick<ServiceJobRecord, 'status' | 'rolloutId' | 'attempts' | 'restarts' | 'reward' | 'errorType' | 'errorMessage' | 'staleness' | 'stale'>
>;

interface Row {
  id: string;
  run_id: string;
  seq: number;
  group_uid: string;
  task_id: string;
  sample_index: number;
  request: string;
  status: ServiceJobStatus;
  weight_version: string | null;
  rollout_id: string | null;
  attempts: number;
  restarts: number;
  reward: number | null;
  error_type: string | null;
  error_message: string | null;
  staleness: number | null;
  stale: number;
}

const COLUMNS: Record<keyof ServiceJobUpdate, string> = {
  status: 'status',
  rolloutId: 'rollout_id',
  attempts: 'attempts',
  restarts: 'restarts',
  reward: 'reward',
  errorType: 'error_type',
  errorMessage: 'error_message',
  staleness: 'staleness',
  stale: 'stale',
};

const ENDED: readonly ServiceJobStatus[] = ['finished', 'error', 'cancelled'];

/** The rollout service's jobs and served weight versions (tables service_jobs, service_weight_versions). */
export class ServiceJobs {
  constructor(private readonly db: SqliteDb) {}

  /** Stores a request's rollouts, all or none, as queued. */
  async add(
    jobs: readonly Omit<
      ServiceJobRecord,
      'seq' | 'status' | 'rolloutId' | 'attempts' | 'restarts' | 'reward' | 'errorType' | 'errorMessage' | 'staleness' | 'stale'
    >[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    const now = Date.now();
    const values = jobs.map(() => `(?, ?, (SELECT COALESCE(MAX(seq), 0) + ? FROM service_jobs WHERE run_id = ?), ?, ?, ?, ?, 'queued', ?, ?)`);
    const params = jobs.flatMap((j, i) => [j.id, j.runId, i + 1, j.runId, j.group, j.taskId, j.sampleIndex, JSON.stringify(j.request), j.weightVersion, now]);
    await this.db.run(
      `INSERT INTO service_jobs (id, run_id, seq, group_uid, task_id, sample_index, request, status, weight_version, created_at) VALUES ${values.join(', ')}`,
      params,
    );
  }

  async update(id: string, update: ServiceJobUpdate): Promise<void> {
    const keys = Object.keys(update) as (keyof ServiceJobUpdate)[];
    if (keys.length === 0) return;
    const values = keys.map((k) => (k === 'stale' ? (update.stale ? 1 : 0) : update[k]));
    const ended = update.status !== undefined && ENDED.includes(update.status);
    await this.db.run(`UPDATE service_jobs SET ${keys.map((k) => `${COLUMNS[k]} = ?`).join(', ')}${ended ? ', ended_at = ?' : ''} WHERE id = ?`, [
      ...values,
      ...(ended ? [Date.now()] : []),
      id,
    ]);
  }

  /** A run's jobs in the order they were submitted. */
  async ofRun(runId: string): Promise<ServiceJobRecord[]> {
    const rows = await this.db.all<Row>('SELECT * FROM service_jobs WHERE run_id = ? ORDER BY seq', [runId]);
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      seq: r.seq,
      group: r.group_uid,
      taskId: r.task_id,
      sampleIndex: r.sample_index,
      request: JSON.parse(r.request) as unknown,
      status: r.status,
      weightVersion: r.weight_version,
      rolloutId: r.rollout_id,
      attempts: r.attempts,
      restarts: r.restarts,
      reward: r.reward,
      errorType: r.error_type,
      errorMessage: r.error_message,
      staleness: r.staleness,
      stale: r.stale !== 0,
    }));
  }

  /** Records that the run's proxies now serve `version` (the resumes that named a new one, in order). */
  async addWeightVersion(runId: string, version: string): Promise<void> {
    await this.db.run(
      'INSERT INTO service_weight_versions (run_id, ord, version) VALUES (?, (SELECT COALESCE(MAX(ord), 0) + 1 FROM service_weight_versions WHERE run_id = ?), ?)',
      [runId, runId, version],
    );
  }

  async weightVersions(runId: string): Promise<string[]> {
    return (await this.db.all<{ version: string }>('SELECT version FROM service_weight_versions WHERE run_id = ? ORDER BY ord', [runId])).map((r) => r.version);
  }

  /** Marks the attempts of a slot that never ended (their process was killed) abandoned; returns the slot's highest attempt, 0 for none. */
  async abandonLiveAttempts(runId: string, taskId: string, sampleIndex: number, message: string): Promise<number> {
    await this.db.run(
      `UPDATE rollouts SET status = 'abandoned', error_message = ?, finished_at = ?
       WHERE run_id = ? AND task_id = ? AND sample_index = ? AND status IN ('pending', 'running')`,
      [message, Date.now(), runId, taskId, sampleIndex],
    );
    const row = await this.db.get<{ attempt: number | null }>(
      'SELECT MAX(attempt) AS attempt FROM rollouts WHERE run_id = ? AND task_id = ? AND sample_index = ?',
      [runId, taskId, sampleIndex],
    );
    return row?.attempt ?? 0;
  }

  /** The latest service run still marked running (its process died without closing it), if any. */
  async unfinishedServiceRun(): Promise<string | undefined> {
    const row = await this.db.get<{ id: string }>(
      `SELECT id FROM runs WHERE status = 'running' AND json_extract(config, '$.service') = 1 ORDER BY created_at DESC LIMIT 1`,
    );
    return row?.id;
  }
}
