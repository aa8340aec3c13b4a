import { randomBytes } from 'node:crypto';
import { errorMessage } from '../util/errors.js';

/** A replay or fork started from the inspector: it runs a whole rollout, so the page polls for its end. */
export interface Job {
  id: string;
  kind: 'replay' | 'fork';
  rolloutId: string;
  status: 'running' | 'done' | 'failed';
  startedAt: number;
  result?: unknown;
  error?: string;
}

/** One job at a time: a job runs an orchestrator, which holds the output folder's lock. */
export class JobRunner {
  private readonly jobs = new Map<string, Job>();
  private active: Job | undefined;

  get busy(): Job | undefined {
    return this.active;
  }

  start(kind: Job['kind'], rolloutId: string, work: () => Promise<unknown>): Job {
    const job: Job = { id: randomBytes(6).toString('hex'), kind, rolloutId, status: 'running', startedAt: Date.now() };
    this.jobs.set(job.id, job);
    this.active = job;
    void work()
      .then((result) => Object.assign(job, { status: 'done', result }))
      .catch((err: unknown) => Object.assign(job, { status: 'failed', error: errorMessage(err) }))
      .finally(() => {
        if (this.active === job) this.active = undefined;
      });
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Resolves once the running job (if any) has ended. */
  async idle(): Promise<void> {
    while (this.active) await new Promise((r) => setTimeout(r, 100));
  }
}
