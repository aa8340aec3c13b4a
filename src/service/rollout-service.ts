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
import { UserError } from '../util/errors.js';
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
  private readonly versions = new WeightVersions();
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
  ) {
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

  static async start(opts: RolloutServiceOptions): Promise<RolloutService> {
    const backend = opts.backend ?? (await createBackend(opts.base));
    await backend.check();
    if (opts.base.sandbox?.runtime) await backend.checkRuntime?.(opts.base.sandbox.runtime);
    await backend.reap();
    mkdirSync(opts.outputDir, { recursive: true });
    const store = await Store.open(path.join(opts.outputDir, STORE_FILE), { recordLingerMs: RECORD_LINGER_MS, callWriterThread: true });
    const runId = `svc-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
    await store.createRun(runId, { service: true, config: opts.base });
    const network = await backend.prepareNetwork(runId, opts.base.network);
    const images = new TaskImages(new ImageBuilder(backend.docker ?? new Docker(), { extraCaFile: opts.extraCaFile }));
    return new RolloutService(opts, runId, store, backend, network, images);
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
    queued.start();
    return queued.result;
  }

  private queueRequest(request: RolloutRequest): { result: { ids: string[]; groups: Record<string, string> }; start(): void; cancel(): void } {
    const harness = getHarness(request.harness);
    if (harness.usesModel && this.network.mode === 'none') throw new UserError('the service runs with network "none": harnesses cannot reach the model');
    let tasks = loadTasks(request.tasks);
    if (request.task_ids) {
      const unknown = request.task_ids.filter((id) => !tasks.some((t) => t.id === id));
      if (unknown.length) throw new UserError(`unknown task ids in ${request.tasks}: ${unknown.join(', ')}`);
      tasks = tasks.filter((t) => request.task_ids!.includes(t.id));
    }
    const config: RunConfig = {
      ...this.opts.base,
      harness: request.harness,
      model: { upstream: request.upstream, replicas: request.replicas, name: request.model, kind: request.kind, sampling: request.sampling },
      max_turns: request.max_turns ?? this.opts.base.max_turns,
    };
    const batch = randomBytes(3).toString('hex');
    const ids: string[] = [];
    const jobs: Job[] = [];
    const groups: Record<string, string> = {};
    for (const task of tasks) {
      groups[task.id] = `${task.id}@${batch}`;
      for (let i = 0; i < request.n; i++) {
        const sampleIndex = this.nextSample.get(task.id) ?? 0;
        this.nextSample.set(task.id, sampleIndex + 1);
        let markDone!: () => void;
        const done = new Promise<void>((r) => (markDone = r));
        const job: Job = {
          id: `${this.runId}.${task.id}.${sampleIndex}`,
          group: groups[task.id]!,
          task,
          sampleIndex,
          config,
          request,
          state: 'queued',
          rolloutId: null,
          attempts: 0,
          outcome: null,
          done,
          markDone,
          cancel: new AbortController(),
        };
        jobs.push(job);
        ids.push(job.id);
      }
    }
    return {
      result: { ids, groups },
      start: () => {
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
      job.state = 'cancelled';
      job.outcome = { reward: null, errorType: 'cancelled', errorMessage: 'cancelled by DELETE /v1/rollouts before it started', beforeAgent: true };
      this.metrics.rolloutEnded(job.outcome, 0);
      job.markDone();
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
    if (weightVersion !== undefined) this.versions.name(weightVersion);
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
      volumeMounts: () => this.images.mounts(harness),
      proxyPort,
      waitForUpstream: (waitMs, signal) => waitForUpstreams(job.config.model, waitMs, signal),
    };
  }

  private async run(job: Job): Promise<void> {
    job.state = 'running';
    const started = performance.now();
    try {
      const harness = harnessFor(job.config);
      const endpoint = harness.usesModel ? await this.endpoint(job) : undefined;
      const deps = this.depsFor(job, harness, endpoint?.port);
      const { rolloutId, outcome } = await runSlot(
        deps,
        { task: job.task, sampleIndex: job.sampleIndex, firstAttempt: 1 },
        job.config.retries.infrastructure,
        () => job.attempts++,
      );
      job.attempts++;
      job.rolloutId = rolloutId;
      job.outcome = job.cancel.signal.aborted
        ? { ...outcome, reward: null, errorType: 'cancelled', errorMessage: 'cancelled by DELETE /v1/rollouts' }
        : outcome;
      job.state = job.cancel.signal.aborted ? 'cancelled' : outcome.reward === null ? 'error' : 'finished';
      if (job.state !== 'cancelled') await this.measureStaleness(job, rolloutId);
    } catch (err) {
      job.outcome = { reward: null, errorType: 'infrastructure', errorMessage: (err as Error).message, beforeAgent: true };
      job.state = 'error';
    } finally {
      this.metrics.rolloutEnded(job.outcome ?? { reward: null, errorType: 'infrastructure' }, (performance.now() - started) / 1000);
      job.markDone();
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
