import { WeightVersions } from './weight-versions.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { RunConfig } from '../config/run.js';
import { loadTasks, type Task } from '../config/task.js';
import { getHarness, harnessFor } from '../harness/registry.js';
import type { Harness } from '../harness/types.js';
import { runSlot } from '../rollout/attempts.js';
import { startModelEndpoint, type ModelEndpoint } from '../rollout/model-endpoint.js';
import { warmSandboxFor, type RolloutDeps, type RolloutOutcome } from '../rollout/rollout.js';
import { SessionRegistry } from '../rollout/sessions.js';
import { TaskImages } from '../rollout/task-images.js';
import type { HoldOptions } from '../proxy/control/proxy-control.js';
import { checkUpstreams, waitForUpstreams, type UpstreamSet } from '../rollout/upstream-preflight.js';
import { WarmPool, type WarmPoolStats } from '../sandbox/warm-pool.js';
import Docker from 'dockerode';
import { ImageBuilder } from '../sandbox/docker/images.js';
import { createBackend } from '../sandbox/registry.js';
import type { RunNetwork, SandboxBackend } from '../sandbox/types.js';
import { RECORD_LINGER_MS, STORE_FILE, Store } from '../store/store.js';
import type { ServiceJobRecord } from '../store/service-jobs.js';
import { acquireStoreLock } from '../store/store-lock.js';
import { errorMessage, UserError, type ErrorType } from '../util/errors.js';
import { ServiceMetrics } from './service-metrics.js';
import type { GroupView, RolloutRequest, RolloutState, RolloutView } from './types.js';

const isLive = (state: RolloutState) => state === 'queued' || state === 'running';

const REQUEST_KEYS = { upstream: 'upstream', replicas: 'replicas', name: 'model' };

function modelOf(request: RolloutRequest): UpstreamSet {
  return { upstream: request.upstream, replicas: request.replicas, name: request.model, kind: request.kind };
}

/** Builds the training samples of a finished rollout (the trajectory builder). */
export type SampleBuilder = (store: Store, rolloutId: string, meta: { weightVersion: string | number | null; simulated: boolean }) => Promise<unknown[]>;

export interface RolloutServiceOptions {
  outputDir: string;
  /** Timeouts, resources, network, concurrency and retries for every rollout. */
  base: RunConfig;
  /** Default: the one `base.backend` names. */
  backend?: SandboxBackend;
  extraCaFile?: string;
  samples?: SampleBuilder;
  /** A new service run even when the store holds one a killed service left (by default that one carries on). */
  fresh?: boolean;
}

/** How a service started: a new run, or the run a killed service left, carried on. */
export interface ServiceStart {
  resumed: boolean;
  /** Of a resumed run: rollouts answered from the store, queued again, and run again after the kill. */
  ended: number;
  queued: number;
  rerun: number;
}

interface Job {
  id: string;
  group: string;
  task: Task;
  sampleIndex: number;
  config: RunConfig;
  request: RolloutRequest;
  state: RolloutState;
  rolloutId: string | null;
  attempts: number;
  /** The attempt number its next run starts at (after the attempts a killed service made). */
  firstAttempt: number;
  /** Times a killed service left it running and a restarted one ran it again. */
  restarts: number;
  outcome: RolloutOutcome | null;
  done: Promise<void>;
  markDone: () => void;
  /** Its sandbox was handed to the warm pool to start while it waited in the queue. */
  warmed?: boolean;
  /** Aborted by DELETE /v1/rollouts/:id: its rollout stops, its container is removed. */
  cancel: AbortController;
  staleness?: number | null;
  stale?: boolean;
}

/**
 * A long-lived orchestrator for online RL: a trainer submits rollouts (task × n against its own
 * inference server), polls them, and pauses the proxies around weight updates. One store and one
 * run record for the service's lifetime; rollouts run under the base config's concurrency limit.
 */
export class RolloutService {
  private readonly jobs = new Map<string, Job>();
  private readonly queue: Job[] = [];
  private readonly endpoints = new Map<string, Promise<ModelEndpoint>>();
  private readonly nextSample = new Map<string, number>();
  private readonly sessions = new SessionRegistry();
  private readonly abort = new AbortController();
  private active = 0;
  /** While paused (pause or drain), the Retry-After harnesses are told; a proxy started meanwhile tells them the same. */
  private paused: { retryAfterSec?: number; hold?: HoldOptions } | null = null;
  /** The weight versions resumes named, in order: every proxy records the current one with the calls it serves. */
  private readonly versions: WeightVersions;
  /** Starts the sandboxes of the next queued rollouts while earlier ones run (run.yaml `warm_pool`). */
  private readonly pool: WarmPool;
  private readonly metrics: ServiceMetrics;

  private constructor(
    private readonly opts: RolloutServiceOptions,
    readonly runId: string,
    private readonly store: Store,
    private readonly backend: SandboxBackend,
    private readonly network: RunNetwork,
    private readonly images: TaskImages,
    private readonly releaseLock: () => void,
    named: readonly string[],
  ) {
    this.versions = new WeightVersions(named);
    this.pool = new WarmPool(backend);
    this.metrics = new ServiceMetrics({
      rolloutsIn: (state) => {
        let count = 0;
        for (const job of this.jobs.values()) if (job.state === state) count++;
        return count;
      },
      warmPool: () => this.warmPool(),
    });
  }

  /** How this service started: `resumed` when it carries on the run of a service that was killed. */
  started: ServiceStart = { resumed: false, ended: 0, queued: 0, rerun: 0 };

  /**
   * Opens the store (one process at a time: its lock) and carries on the run a killed service left in it
   * (its containers reaped by their owner label), unless `fresh`; otherwise creates a new run.
   */
  static async start(opts: RolloutServiceOptions): Promise<RolloutService> {
    const backend = opts.backend ?? (await createBackend(opts.base));
    await backend.check();
    if (opts.base.sandbox?.runtime) await backend.checkRuntime?.(opts.base.sandbox.runtime);
    await backend.reap();
    mkdirSync(opts.outputDir, { recursive: true });
    const storeFile = path.join(opts.outputDir, STORE_FILE);
    const releaseLock = acquireStoreLock(storeFile);
    let store: Store | undefined;
    try {
      store = await Store.open(storeFile, { recordLingerMs: RECORD_LINGER_MS, callWriterThread: true });
      const left = opts.fresh ? undefined : await store.serviceJobs.unfinishedServiceRun();
      const runId = left ?? `svc-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
      if (left) {
        await backend.removeRun(left); // what the reaper left of the killed process's containers and network
        await store.setRunStatus(left, 'running');
      } else {
        await store.createRun(runId, { service: true, config: opts.base });
      }
      const network = await backend.prepareNetwork(runId, opts.base.network);
      const images = new TaskImages(new ImageBuilder(backend.docker ?? new Docker(), { extraCaFile: opts.extraCaFile }));
      const named = left ? await store.serviceJobs.weightVersions(left) : [];
      const service = new RolloutService(opts, runId, store, backend, network, images, releaseLock, named);
      if (left) await service.carryOn(await store.serviceJobs.ofRun(left));
      return service;
    } catch (err) {
      await store?.close().catch(() => undefined);
      releaseLock();
      throw err;
    }
  }

  /**
   * Takes back the jobs of a killed service's run: ended ones are answered from the store, queued ones queue
   * again in their order, and those it was running run again as a new attempt, after the attempts it left
   * (marked abandoned), so that no record of the killed attempt reaches the new one's samples.
   */
  private async carryOn(records: readonly ServiceJobRecord[]): Promise<void> {
    const tasksOf = new Map<string, Task[] | Error>();
    const interrupted: Job[] = [];
    const queued: Job[] = [];
    for (const record of records) {
      const request = record.request as RolloutRequest;
      this.nextSample.set(record.taskId, Math.max(this.nextSample.get(record.taskId) ?? 0, record.sampleIndex + 1));
      let tasks = tasksOf.get(request.tasks);
      if (!tasks) {
        try {
          tasks = loadTasks(request.tasks);
        } catch (err) {
          tasks = err as Error;
        }
        tasksOf.set(request.tasks, tasks);
      }
      const task = tasks instanceof Error ? undefined : tasks.find((t) => t.id === record.taskId);
      const job = this.newJob(record.id, record.group, task ?? ({ id: record.taskId } as Task), record.sampleIndex, request);
      job.attempts = record.attempts;
      job.restarts = record.restarts;
      job.rolloutId = record.rolloutId;
      job.staleness = record.staleness;
      job.stale = record.stale;
      this.jobs.set(job.id, job);
      if (!isLive(record.status)) {
        job.state = record.status;
        job.outcome = { reward: record.reward, errorType: record.errorType as ErrorType | null, errorMessage: record.errorMessage, beforeAgent: false };
        job.markDone();
        this.started.ended++;
        continue;
      }
      if (!task) {
        const why = tasks instanceof Error ? errorMessage(tasks) : `task ${record.taskId} is no longer in ${request.tasks}`;
        await this.end(job, 'error', {
          reward: null,
          errorType: 'infrastructure',
          errorMessage: `the restarted service cannot run it: ${why}`,
          beforeAgent: true,
        });
        continue;
      }
      const last = await this.store.serviceJobs.abandonLiveAttempts(
        this.runId,
        record.taskId,
        record.sampleIndex,
        'the rollout service was killed while this attempt ran',
      );
      job.firstAttempt = last + 1;
      job.attempts = last;
      if (record.status === 'running') {
        job.restarts++;
        await this.store.serviceJobs.update(job.id, { status: 'queued', restarts: job.restarts, attempts: job.attempts });
        interrupted.push(job);
      } else queued.push(job);
    }
    this.queue.push(...interrupted, ...queued);
    this.started = { resumed: true, ended: this.started.ended, queued: queued.length, rerun: interrupted.length };
    this.pump();
  }

  private newJob(id: string, group: string, task: Task, sampleIndex: number, request: RolloutRequest): Job {
    let markDone!: () => void;
    const done = new Promise<void>((r) => (markDone = r));
    return {
      id,
      group,
      task,
      sampleIndex,
      config: this.configFor(request),
      request,
      state: 'queued',
      rolloutId: null,
      attempts: 0,
      firstAttempt: 1,
      restarts: 0,
      outcome: null,
      done,
      markDone,
      cancel: new AbortController(),
    };
  }

  private configFor(request: RolloutRequest): RunConfig {
    return {
      ...this.opts.base,
      harness: request.harness,
      model: { upstream: request.upstream, replicas: request.replicas, name: request.model, kind: request.kind, sampling: request.sampling },
      max_turns: request.max_turns ?? this.opts.base.max_turns,
    };
  }

  /** A job's end, in memory and in the store. */
  private async end(job: Job, state: 'finished' | 'error' | 'cancelled', outcome: RolloutOutcome): Promise<void> {
    job.state = state;
    job.outcome = outcome;
    await this.store.serviceJobs
      .update(job.id, {
        status: state,
        rolloutId: job.rolloutId,
        attempts: job.attempts,
        reward: outcome.reward,
        errorType: outcome.errorType ?? null,
        errorMessage: outcome.errorMessage ?? null,
        staleness: job.staleness ?? null,
        stale: job.stale ?? false,
      })
      .catch(() => undefined); // a store closed under it (the service stopping): the run's rows stay as they were
    job.markDone();
  }

  /**
   * Queues n rollouts of every selected task; returns their ids once every upstream of the request was seen
   * serving its model (an outage is a 502 here, not failed rollouts).
   */
  async submit(request: RolloutRequest): Promise<{ ids: string[]; groups: Record<string, string> }> {
    const queued = this.queueRequest(request);
    try {
      if (getHarness(request.harness).usesModel) await checkUpstreams(modelOf(request), REQUEST_KEYS);
    } catch (err) {
      queued.cancel();
      throw err;
    }
    await queued.start();
    return queued.result;
  }

  private queueRequest(request: RolloutRequest): {
    result: { ids: string[]; groups: Record<string, string> };
    start(): Promise<void>;
    cancel(): void;
  } {
    const harness = getHarness(request.harness);
    if (harness.usesModel && this.network.mode === 'none') throw new UserError('the service runs with network "none": harnesses cannot reach the model');
    let tasks = loadTasks(request.tasks);
    if (request.task_ids) {
      const unknown = request.task_ids.filter((id) => !tasks.some((t) => t.id === id));
      if (unknown.length) throw new UserError(`unknown task ids in ${request.tasks}: ${unknown.join(', ')}`);
      tasks = tasks.filter((t) => request.task_ids!.includes(t.id));
    }
    const batch = randomBytes(3).toString('hex');
    const ids: string[] = [];
    const jobs: Job[] = [];
    const groups: Record<string, string> = {};
    for (const task of tasks) {
      groups[task.id] = `${task.id}@${batch}`;
      for (let i = 0; i < request.n; i++) {
        const sampleIndex = this.nextSample.get(task.id) ?? 0;
        this.nextSample.set(task.id, sampleIndex + 1);
        const job = this.newJob(`${this.runId}.${task.id}.${sampleIndex}`, groups[task.id]!, task, sampleIndex, request);
        jobs.push(job);
        ids.push(job.id);
      }
    }
    return {
      result: { ids, groups },
      // stored before the 202: a rollout the trainer was told of survives the service
      start: async () => {
        const weightVersion = request.weight_version === undefined ? null : String(request.weight_version);
        await this.store.serviceJobs.add(
          jobs.map((j) => ({ id: j.id, runId: this.runId, group: j.group, taskId: j.task.id, sampleIndex: j.sampleIndex, request, weightVersion })),
        );
        for (const job of jobs) {
          this.jobs.set(job.id, job);
          this.queue.push(job);
        }
        this.metrics.rolloutsSubmitted(ids.length);
        this.pump();
      },
      cancel: () => {
        // sample indexes taken by a request that never ran are given back, when no other request took later ones
        for (const task of tasks) {
          const taken = jobs.filter((j) => j.task.id === task.id).map((j) => j.sampleIndex);
          if (taken.length && this.nextSample.get(task.id) === Math.max(...taken) + 1) this.nextSample.set(task.id, Math.min(...taken));
        }
      },
    };
  }

  async view(id: string, waitSec = 0, includeStale = false): Promise<RolloutView | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (waitSec > 0 && (job.state === 'queued' || job.state === 'running')) {
      await Promise.race([job.done, new Promise((r) => setTimeout(r, waitSec * 1000).unref())]);
    }
    const view = this.summary(job);
    if (job.state === 'finished' && job.rolloutId && this.opts.samples && (!job.stale || includeStale)) {
      view.samples = await this.opts.samples(this.store, job.rolloutId, {
        weightVersion: view.weight_version,
        simulated: job.config.model.upstream.startsWith('sim:'),
      });
    }
    return view;
  }

  /** Every rollout of a group, once all have ended or `waitSec` has passed; undefined for an unknown group. */
  async group(uid: string, waitSec = 0): Promise<GroupView | undefined> {
    const jobs = [...this.jobs.values()].filter((j) => j.group === uid);
    if (jobs.length === 0) return undefined;
    if (waitSec > 0) await Promise.race([Promise.all(jobs.map((j) => j.done)), new Promise((r) => setTimeout(r, waitSec * 1000).unref())]);
    const ended = jobs.every((j) => !isLive(j.state));
    const rewards = jobs.map((j) => j.outcome?.reward).filter((r): r is number => typeof r === 'number');
    return {
      group: uid,
      ended,
      rollouts: jobs.map((j) => this.summary(j)),
      uniform: ended ? rewards.length > 0 && rewards.every((r) => r === rewards[0]) : null,
    };
  }

  /**
   * Cancels a queued or running rollout: a queued one leaves the queue, a running one is stopped and its
   * container removed; either ends `cancelled`. False when the rollout had already ended; undefined when unknown.
   */
  cancel(id: string): boolean | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (!isLive(job.state)) return false;
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      const outcome: RolloutOutcome = {
        reward: null,
        errorType: 'cancelled',
        errorMessage: 'cancelled by DELETE /v1/rollouts before it started',
        beforeAgent: true,
      };
      this.metrics.rolloutEnded(outcome, 0);
      void this.end(job, 'cancelled', outcome);
    } else {
      // stored at once: a service killed before the rollout has stopped does not run it again after its restart
      void this.store.serviceJobs
        .update(job.id, { status: 'cancelled', errorType: 'cancelled', errorMessage: 'cancelled by DELETE /v1/rollouts' })
        .catch(() => undefined);
    }
    job.cancel.abort();
    return true;
  }

  private summary(job: Job): RolloutView {
    return {
      id: job.id,
      task_id: job.task.id,
      group: job.group,
      status: job.state,
      reward: job.outcome?.reward ?? null,
      error_type: job.outcome?.errorType ?? null,
      error_message: job.outcome?.errorMessage ?? null,
      attempts: job.attempts,
      restarts: job.restarts,
      weight_version: job.request.weight_version ?? null,
      staleness: job.staleness ?? null,
      stale: job.stale ?? false,
    };
  }

  /** The warm pool's counts so far, and its warm containers not yet taken. */
  warmPool(): WarmPoolStats & { idle: number } {
    return { ...this.pool.stats, idle: this.pool.idle };
  }

  /** GET /metrics: the service's own and those of every proxy it started, as one exposition. */
  async metricsExposition(): Promise<{ contentType: string; text: string }> {
    const proxies = await Promise.all((await this.startedEndpoints()).map((e) => e.metrics()));
    return this.metrics.exposition(proxies);
  }

  /**
   * Before a weight update: every proxy refuses new model calls (429 + Retry-After), and this waits up to
   * `timeoutSec` for the calls in flight to end and be recorded, so that no answer straddles two versions.
   */
  async drain(
    timeoutSec: number,
    retryAfterSec?: number,
    hold?: HoldOptions,
  ): Promise<{ paused: true; drained: boolean; in_flight: number; pending_records: number }> {
    this.paused = { retryAfterSec, hold };
    const states = await Promise.all((await this.startedEndpoints()).map((e) => e.drain(timeoutSec, retryAfterSec, hold)));
    return {
      paused: true,
      drained: states.every((s) => s.drained),
      in_flight: states.reduce((sum, s) => sum + s.inFlight, 0),
      pending_records: states.reduce((sum, s) => sum + s.pendingRecords, 0),
    };
  }

  async setPaused(paused: boolean, retryAfterSec?: number, hold?: HoldOptions): Promise<{ paused: boolean }> {
    this.paused = paused ? { retryAfterSec, hold } : null;
    for (const e of await this.startedEndpoints()) await (paused ? e.pause(retryAfterSec, hold) : e.resume());
    return { paused };
  }

  /** Serves model calls again; `weightVersion` names the weights loaded, recorded from now on with every call. */
  async resume(weightVersion?: string): Promise<{ paused: false; weight_version: string | null }> {
    if (weightVersion !== undefined && this.versions.name(weightVersion)) await this.store.serviceJobs.addWeightVersion(this.runId, weightVersion);
    this.paused = null;
    const current = this.versions.current ?? undefined;
    for (const e of await this.startedEndpoints()) await e.resume(current);
    return { paused: false, weight_version: this.versions.current };
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.queue.length = 0;
    await this.pool.close();
    await this.backend.removeRun(this.runId).catch(() => undefined);
    for (const e of await this.startedEndpoints()) await e.close();
    await this.backend.releaseNetwork(this.network).catch(() => undefined);
    await this.store.setRunStatus(this.runId, 'finished').catch(() => undefined);
    await this.store.close();
    this.releaseLock();
  }

  private pump(): void {
    while (this.active < this.opts.base.concurrency && this.queue.length > 0 && !this.abort.signal.aborted) {
      const job = this.queue.shift()!;
      this.active++;
      void this.run(job).finally(() => {
        this.active--;
        this.pump();
      });
    }
    const ahead = this.opts.base.warm_pool ?? this.opts.base.concurrency;
    for (const job of this.queue.slice(0, ahead)) {
      if (job.warmed || this.abort.signal.aborted) continue;
      job.warmed = true;
      try {
        void warmSandboxFor(this.pool, this.depsFor(job, harnessFor(job.config)), job.task);
      } catch {
        // a job its harness cannot run fails when it runs, with that error
      }
    }
  }

  private depsFor(job: Job, harness: Harness, proxyPort?: number): RolloutDeps {
    return {
      runId: this.runId,
      config: job.config,
      harness,
      backend: this.pool,
      store: this.store,
      sessions: this.sessions,
      network: this.network,
      runDir: path.join(this.opts.outputDir, this.runId),
      signal: AbortSignal.any([this.abort.signal, job.cancel.signal]),
      taskImage: (task) => this.images.get(task),
      taskWorkdir: (task, image) => this.images.workdir(task, image),
      taskServices: (task) => this.images.services(task),
      volumeMounts: () => this.images.mounts(harness),
      proxyPort,
      waitForUpstream: (waitMs, signal) => waitForUpstreams(job.config.model, waitMs, signal),
    };
  }

  private async run(job: Job): Promise<void> {
    job.state = 'running';
    const started = performance.now();
    let state: 'finished' | 'error' | 'cancelled' = 'error';
    let outcome: RolloutOutcome = { reward: null, errorType: 'infrastructure', errorMessage: null, beforeAgent: true };
    try {
      await this.store.serviceJobs.update(job.id, { status: 'running' });
      const harness = harnessFor(job.config);
      const endpoint = harness.usesModel ? await this.endpoint(job) : undefined;
      const deps = this.depsFor(job, harness, endpoint?.port);
      const slot = await runSlot(
        deps,
        { task: job.task, sampleIndex: job.sampleIndex, firstAttempt: job.firstAttempt },
        job.config.retries.infrastructure,
        () => job.attempts++,
      );
      job.attempts++;
      job.rolloutId = slot.rolloutId;
      const cancelled = job.cancel.signal.aborted;
      outcome = cancelled ? { ...slot.outcome, reward: null, errorType: 'cancelled', errorMessage: 'cancelled by DELETE /v1/rollouts' } : slot.outcome;
      state = cancelled ? 'cancelled' : outcome.reward === null ? 'error' : 'finished';
      if (!cancelled) await this.measureStaleness(job, slot.rolloutId);
    } catch (err) {
      outcome = { reward: null, errorType: 'infrastructure', errorMessage: (err as Error).message, beforeAgent: true };
      state = 'error';
    } finally {
      this.metrics.rolloutEnded(outcome, (performance.now() - started) / 1000);
      await this.end(job, state, outcome);
    }
  }

  /**
   * How many weight updates the rollout's first policy call is behind the serving weights now that it has ended;
   * above its `max_staleness` it is stale (kept, counted, out of samples unless asked for). Stored on its row.
   */
  private async measureStaleness(job: Job, rolloutId: string): Promise<void> {
    await this.store.flush();
    const first = await this.store.firstPolicyCallVersion(rolloutId);
    if (first === undefined) return;
    const staleness = this.versions.behind(first);
    const limit = job.request.max_staleness ?? this.opts.base.max_staleness;
    job.staleness = staleness;
    job.stale = limit !== undefined && staleness !== null && staleness > limit;
    await this.store.updateRollout(rolloutId, { staleness, stale: job.stale });
    if (job.stale) this.metrics.rolloutStale();
  }

  /** The proxies started so far (one that failed to start is left out: its rollouts failed with its error). */
  private async startedEndpoints(): Promise<ModelEndpoint[]> {
    const settled = await Promise.all([...this.endpoints.values()].map((e) => e.catch(() => undefined)));
    return settled.filter((e) => e !== undefined);
  }

  /** One proxy (and sim, for sim: upstreams) per distinct model config and task set. */
  private endpoint(job: Job): Promise<ModelEndpoint> {
    const simulated = job.config.model.upstream.startsWith('sim:');
    const key = JSON.stringify([job.config.model, simulated ? job.request.tasks : '']);
    let e = this.endpoints.get(key);
    if (!e) {
      e = startModelEndpoint({
        model: job.config.model,
        tasks: simulated ? loadTasks(job.request.tasks) : [],
        store: this.store,
        sessions: this.sessions,
        network: this.network,
      }).then(async (ready) => {
        await this.backend.openHostPort?.(this.network, ready.port);
        return ready;
      });
      this.endpoints.set(key, e);
      e.then(async (ready) => {
        if (this.versions.current !== null) await ready.resume(this.versions.current);
        if (this.paused) await ready.pause(this.paused.retryAfterSec, this.paused.hold);
      }).catch(() => this.endpoints.delete(key));
    }
    return e;
  }
}
