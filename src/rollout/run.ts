import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedRunConfig } from '../config/run.js';
import { taskContentHash } from '../config/task-hash.js';
import { benchmarkOf, internetNotGiven, loadTasks, type Task } from '../config/task.js';
import { harnessFor } from '../harness/registry.js';
import Docker from 'dockerode';
import { createBackend } from '../sandbox/registry.js';
import { ImageBuilder } from '../sandbox/docker/images.js';
import { BackendUnreachableError } from '../sandbox/backend-unreachable.js';
import type { SandboxBackend } from '../sandbox/types.js';
import { WarmPool } from '../sandbox/warm-pool.js';
import type { ScriptedAnswer } from '../proxy/session.js';
import { acquireStoreLock } from '../store/store-lock.js';
import { RECORD_LINGER_MS, STORE_FILE, Store, type RolloutParent } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { contentHash } from '../util/hash.js';
import { runSlot } from './attempts.js';
import { startModelEndpoint, type ModelEndpoint } from './model-endpoint.js';
import { warmSandboxFor, type LiveView, type RolloutDeps, type RolloutOutcome } from './rollout.js';
import { JudgeEndpoint } from './judge-endpoint.js';
import { TaskImages } from './task-images.js';
import { checkUpstreams, waitForUpstreams } from './upstream-preflight.js';
import { SessionRegistry } from './sessions.js';
import { summarize, type RunSummary } from '../analytics/run-summary.js';

export interface RunEvents {
  /** Called once the plan is known: how many rollouts will run now, and how many a resumed run skipped. */
  onPlan?(plan: { runId: string; resumed: boolean; total: number; skipped: number; outputDir: string }): void;
  onRolloutDone?(r: { taskId: string; sampleIndex: number; outcome: RolloutOutcome }): void;
  onLog?(line: string): void;
  /** A browser rollout's environment is up: its live view (noVNC, view-only) answers at `url`. */
  onLiveView?(view: LiveView): void;
}

export interface RunOptions extends RunEvents {
  /** Start a new run even when the latest one in the output folder is unfinished. */
  fresh?: boolean;
  signal?: AbortSignal;
  backend?: SandboxBackend;
  extraCaFile?: string;
  /**
   * Debugging: containers stay up after their rollout (for at most this many more seconds) instead of
   * being removed; the caller removes them with `backend.removeRun(runId)` when it is done.
   */
  keepContainersSec?: number;
  /** The rollout this run replays or forks: its rollouts are stored linked to it. */
  parent?: RolloutParent;
  /** Fork: the proxy answers each rollout's first policy calls with these itself; the configured upstream answers the rest. */
  script?: readonly ScriptedAnswer[];
  /** Replay: `script` holds every answer of the episode; a policy call past it is answered with a final message and recorded as an overrun. */
  endAfterScript?: boolean;
  /** Bearer token for the proxy's GET /metrics and /control/* while the run lasts (OPENFORGE_ADMIN_TOKEN); random, unusable, by default. */
  proxyAdminToken?: string;
}

export { STORE_FILE };

const MODEL_KEYS = { upstream: 'model.upstream', replicas: 'model.replicas', name: 'model.name' };

/**
 * Runs every task × rollouts_per_task under the concurrency limit, or resumes the latest unfinished run of
 * the same config in the output folder (finished rollouts are kept, unfinished ones run again).
 */
export async function executeRun(loaded: LoadedRunConfig, options: RunOptions = {}): Promise<RunSummary> {
  const { config } = loaded;
  const started = Date.now();
  const tasks = loadAllTasks(loaded.taskPaths);
  const harness = harnessFor(config);
  // An outage is found here, in seconds, rather than as failed rollouts.
  if (harness.usesModel) await checkUpstreams(config.model, MODEL_KEYS);
  const backend = options.backend ?? (await createBackend(config));
  // Images are built by the local engine on every backend; a cluster pulls them from the registry they were pushed to.
  // Made before anything starts: the builder checks the extra CA bundle.
  const docker = backend.docker ?? new Docker();
  const images = new TaskImages(new ImageBuilder(docker, { extraCaFile: options.extraCaFile, onLog: options.onLog }));
  await backend.check();
  await refuseUnenforcedStorage(backend, tasks);
  refuseUnrunServices(backend, tasks);
  if (config.sandbox?.runtime) await backend.checkRuntime?.(config.sandbox.runtime);
  await backend.reap();

  mkdirSync(loaded.outputDir, { recursive: true });
  const releaseLock = acquireStoreLock(path.join(loaded.outputDir, STORE_FILE));
  const store = await Store.open(path.join(loaded.outputDir, STORE_FILE), { recordLingerMs: RECORD_LINGER_MS, callWriterThread: true });
  const cleanups: (() => Promise<unknown>)[] = [];
  // The run stops itself too: when its backend stays unreachable, as it would on Ctrl-C.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let stoppedBy: BackendUnreachableError | undefined;
  try {
    // the same config over the same tasks, to the byte: a task edited since is a new run
    const configHash = contentHash([JSON.stringify(config), ...tasks.map((t) => `${t.id}\0${taskContentHash(t)}`)]);
    const latest = await store.latestRun();
    const resumable = latest && latest.status !== 'finished' && (latest.config as { hash?: string }).hash === configHash && !options.fresh;
    const runId = resumable
      ? latest.id
      : `run-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
    if (resumable) {
      await backend.removeRun(runId); // containers of the dead process, if the reaper has not got them
      await store.setRunStatus(runId, 'running');
    } else {
      await store.createRun(runId, { hash: configHash, config, file: loaded.file });
    }
    const runDir = path.join(loaded.outputDir, runId);
    mkdirSync(runDir, { recursive: true });

    // Plan: the (task, sample) slots that have no final result yet.
    const current = new Map((await store.currentRollouts(runId)).map((r) => [`${r.taskId}\0${r.sampleIndex}`, r]));
    const todo: { task: Task; sampleIndex: number; attempt: number }[] = [];
    let skipped = 0;
    for (const task of tasks) {
      for (let i = 0; i < config.rollouts_per_task; i++) {
        const prev = current.get(`${task.id}\0${i}`);
        const final =
          prev && (prev.status === 'finished' || (prev.status === 'error' && prev.errorType !== 'cancelled' && prev.errorType !== 'upstream_error'));
        if (final) skipped++;
        else {
          if (prev) await store.updateRollout(prev.id, { status: 'abandoned' });
          todo.push({ task, sampleIndex: i, attempt: (prev?.attempt ?? 0) + 1 });
        }
      }
    }
    options.onPlan?.({ runId, resumed: !!resumable, total: todo.length, skipped, outputDir: loaded.outputDir });

    // Kept containers are found by their rollout's label (`openforge shell`), which a warm container cannot carry.
    const warmPool = options.keepContainersSec ? 0 : (config.warm_pool ?? config.concurrency);
    const network = await backend.prepareNetwork(runId, config.network, { sandboxes: todo.length, atOnce: config.concurrency + warmPool });
    // Kept containers still sit on the run's network: the caller removes both (removeRun) when done.
    if (!options.keepContainersSec) {
      cleanups.push(() => backend.releaseNetwork(network));
      cleanups.push(() => backend.removeRun(runId));
    }
    const rolloutSessions = new SessionRegistry();
    let endpoint: ModelEndpoint | undefined;
    if (harness.usesModel && todo.length > 0) {
      endpoint = await startModelEndpoint({ model: config.model, tasks, store, sessions: rolloutSessions, network, adminToken: options.proxyAdminToken });
      cleanups.unshift(() => endpoint!.close());
      await backend.openHostPort?.(network, endpoint.port);
      options.onLog?.(
        `proxy listening on ${network.proxyHost ?? '127.0.0.1'}:${endpoint.port}${endpoint.simulated ? ` (upstream ${config.model.upstream}: simulated model)` : ''}`,
      );
      if (options.proxyAdminToken) options.onLog?.(`proxy metrics: http://127.0.0.1:${endpoint.port}/metrics (Authorization: Bearer <the admin token>)`);
    }
    for (const task of tasks) {
      const note = internetNotGiven(task, config.network, backend.grantsInternet);
      if (note) options.onLog?.(note);
    }
    let judge: JudgeEndpoint | undefined;
    if (config.judge) {
      if (!network.proxyHost)
        throw new UserError(`judge: a rollout on network ${network.mode} cannot reach the judge endpoint`, 'use network: proxy-only (or public)');
      judge = await JudgeEndpoint.start(config.judge, network.proxyHost);
      cleanups.unshift(() => judge!.close());
      await backend.openHostPort?.(network, judge.port);
      options.onLog?.(
        `judge endpoint on ${network.proxyHost}:${judge.port} (upstream ${config.judge.upstream}${config.judge.upstream === 'sim:judge' ? ': simulated judge' : ''}), for verifier phases only`,
      );
    }
    const pool = warmPool > 0 ? new WarmPool(backend) : undefined;
    if (pool) {
      cleanups.unshift(async () => {
        await pool.close();
        const { warm, cold, unused } = pool.stats;
        options.onLog?.(`warm pool: ${warm} of ${warm + cold} containers were started ahead${unused ? `, ${unused} removed unused` : ''}`);
      });
    }
    const deps: RolloutDeps = {
      runId,
      config,
      harness,
      backend: pool ?? backend,
      store,
      sessions: rolloutSessions,
      network,
      runDir,
      signal,
      taskImage: (task) => images.get(task),
      taskWorkdir: (task, image) => images.workdir(task, image),
      taskServices: (task) => images.services(task),
      judge,
      volumeMounts: () => images.mounts(harness),
      proxyPort: endpoint?.port,
      keepContainerSec: options.keepContainersSec,
      parent: options.parent,
      script: options.script,
      endAfterScript: options.endAfterScript,
      onLiveView: options.onLiveView,
      waitForUpstream: (waitMs, waitSignal) => waitForUpstreams(config.model, waitMs, waitSignal),
    };

    // Interrupted: remove the run's containers now, so in-flight execs end instead of running to their timeouts.
    const onAbort = () => void backend.removeRun(runId).catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(async () => signal.removeEventListener('abort', onAbort));

    const runOne = async (slot: (typeof todo)[number]) => {
      try {
        const { outcome } = await runSlot(
          deps,
          { task: slot.task, sampleIndex: slot.sampleIndex, firstAttempt: slot.attempt },
          config.retries.infrastructure,
          (failed) =>
            options.onLog?.(
              `retrying ${slot.task.id}#${slot.sampleIndex} after ${failed.errorType === 'upstream_error' ? 'an upstream' : 'an infrastructure'} error: ${failed.errorMessage}`,
            ),
        );
        options.onRolloutDone?.({ taskId: slot.task.id, sampleIndex: slot.sampleIndex, outcome });
      } catch (err) {
        if (!(err instanceof BackendUnreachableError)) throw err;
        stoppedBy ??= err;
        stop.abort(err);
      }
    };
    const limit = Math.min(config.concurrency, backend.maxSandboxes ?? Infinity);
    // Warm containers count against a cluster's cap on sandboxes too.
    const ahead = Math.min(warmPool, backend.maxSandboxes === undefined ? Infinity : Math.max(0, backend.maxSandboxes - limit));
    let warmed = Math.min(limit, todo.length); // the first rollouts start at once: nothing to start ahead of them
    const warmAhead = (next: number) => {
      for (; pool && warmed < Math.min(next + ahead, todo.length); warmed++) void warmSandboxFor(pool, deps, todo[warmed]!.task);
    };
    await runPool(todo, limit, runOne, signal, warmAhead);
    if (stoppedBy) {
      await store.setRunStatus(runId, 'interrupted');
      throw new UserError(
        `${stoppedBy.message}, so the run stopped`,
        'bring it back, then run the same command again: the run resumes with the rollouts that did not finish (`retries.backend_wait_sec` sets how long a run waits)',
      );
    }

    await store.setRunStatus(runId, signal.aborted ? 'interrupted' : 'finished');
    const summary = summarize(await store.currentRollouts(runId), {
      runId,
      harness: harness.name,
      k: config.rollouts_per_task,
      passThreshold: config.pass_threshold,
      simulated: endpoint?.simulated ?? false,
      wallTimeSec: (Date.now() - started) / 1000,
      benchmarkOf: (taskId) => {
        const task = tasks.find((t) => t.id === taskId);
        return task && benchmarkOf(task);
      },
    });
    writeFileSync(path.join(runDir, 'summary.json'), JSON.stringify(summary, null, 2));
    return summary;
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
    await store.close();
    releaseLock();
  }
}

export function loadAllTasks(paths: string[]): Task[] {
  const tasks = paths.flatMap((p) => loadTasks(p));
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.id)) throw new UserError(`two tasks share the id "${t.id}" (${t.dir})`, 'give each task a unique [task] name');
    seen.add(t.id);
  }
  return tasks;
}

/**
 * Runs items with at most `limit` in flight; stops taking new items once aborted. `taken(next)` is told the
 * index of the first item not yet taken, each time one is.
 */
async function runPool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>, signal: AbortSignal, taken?: (next: number) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) {
      const item = items[next++]!;
      taken?.(next);
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A task whose services a backend cannot start is refused before anything starts, not run without them. */
function refuseUnrunServices(backend: SandboxBackend, tasks: readonly Task[]): void {
  const withServices = tasks.filter((t) => t.services?.length);
  if (withServices.length === 0 || backend.runsServices) return;
  throw new UserError(
    `${withServices.map((t) => t.id).join(', ')} declare${withServices.length === 1 ? 's' : ''} services (environment/docker-compose.yaml), which the ${backend.name} backend does not start`,
    'run these tasks with backend: docker',
  );
}

/** A task's storage_mb is a limit, not a hint: a backend that cannot hold it stops the run before anything starts. */
async function refuseUnenforcedStorage(backend: SandboxBackend, tasks: readonly Task[]): Promise<void> {
  const limited = tasks.filter((t) => t.config.environment.storage_mb !== undefined);
  if (limited.length === 0) return;
  const problem = backend.storageLimitProblem ? await backend.storageLimitProblem() : `the ${backend.name} backend cannot limit a sandbox's disk`;
  if (problem) {
    throw new UserError(
      `${limited.length === 1 ? `task ${limited[0]!.id} sets` : `${limited.length} tasks (${limited.map((t) => t.id).join(', ')}) set`} [environment] storage_mb, which cannot be enforced here: ${problem}`,
      'remove storage_mb from those tasks, or run them where the engine can hold it (Docker: overlay2 on xfs mounted with pquota)',
    );
  }
}
