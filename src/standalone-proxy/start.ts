import { randomBytes } from 'node:crypto';
import { loadTasks, type Task } from '../config/task.js';
import { formatSimSpec, parseSimSpec } from '../sim/policies/sim-spec.js';
import { startSimServer } from '../sim/server.js';
import { acquireStoreLock } from '../store/store-lock.js';
import { RECORD_LINGER_MS, Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { startProxy } from '../proxy/server.js';
import { tokenInOptions } from '../proxy/token-in/token-in-setup.js';
import { StandaloneRun, type StandaloneRunSummary } from './run.js';
import { StandaloneSessions } from './sessions.js';
import type { EjectionPolicy, ForcedSampling, ProxyLogger, TransientPolicy, UpstreamConfig, UpstreamKind } from '../proxy/types.js';
import type { RunningProxy } from '../proxy/server.js';

export interface StandaloneProxyOptions {
  /** Base URLs (with /v1) or sim specs (`sim:oracle`, `sim:noisy:0.3`); several make replicas. */
  upstreams: string[];
  /** What the URL upstreams are (sims are always vLLM-compatible). */
  kind: UpstreamKind;
  /** Sent as Bearer to URL upstreams; never recorded. */
  upstreamApiKey?: string;
  dbFile: string;
  host: string;
  port: number;
  sampling?: ForcedSampling;
  policyModels?: string[];
  /** Task folder or suite the sim upstreams solve. */
  tasksDir?: string;
  open: boolean;
  /** Generated when absent. */
  adminToken?: string;
  /** Token-in/token-out (`--token-in`), with the model's template and tokenizer (`--tokenizer`: a folder or a family name). */
  tokenIn?: boolean;
  tokenizer?: string;
  /** `--transient-context`: see `TransientPolicy`. */
  transient?: TransientPolicy;
  /** When a replica leaves routing; the defaults (DEFAULT_EJECTION) for what is absent. */
  ejection?: Partial<EjectionPolicy>;
  logger?: ProxyLogger;
}

export interface StandaloneUpstream {
  spec: string;
  url: string;
  simulated: boolean;
}

export interface StandaloneProxy {
  proxy: RunningProxy;
  adminToken: string;
  /** Recorded as the run id of every session. */
  runId: string;
  upstreams: StandaloneUpstream[];
  /** Stops taking calls, lets in-flight ones finish and be recorded, then closes sims and the store; what was recorded (undefined after the first close). */
  close(): Promise<StandaloneRunSummary | undefined>;
}

/**
 * A recording proxy without an orchestrator (`openforge proxy`): calls go to `dbFile`, sessions
 * come from `POST /control/sessions` (or, with `open`, from any token), `sim:` upstreams run
 * in-process.
 */
export async function startStandaloneProxy(options: StandaloneProxyOptions): Promise<StandaloneProxy> {
  if (options.upstreams.length === 0)
    throw new UserError('the proxy needs at least one --upstream', 'give a base URL such as http://127.0.0.1:8000/v1, or sim:oracle');
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
  };
  try {
    const upstreams = await resolveUpstreams(options, cleanups);
    const tokenIn = options.tokenIn
      ? await tokenInOptions({
          tokenizer: options.tokenizer,
          upstreams: upstreams.map((u) => ({ url: u.config.url, sim: u.simulated ? { family: u.family } : undefined })),
          kind: options.kind,
          apiKey: options.upstreamApiKey,
          sampling: options.sampling,
          transient: options.transient,
          options: { tokenIn: '--token-in', tokenizer: '--tokenizer' },
        })
      : undefined;
    // the store file is locked against a second writer until the store is closed
    const releaseLock = acquireStoreLock(options.dbFile);
    let store: Store;
    try {
      store = await Store.open(options.dbFile, { recordLingerMs: RECORD_LINGER_MS, callWriterThread: true });
    } catch (err) {
      releaseLock();
      throw err;
    }
    cleanups.push(async () => {
      try {
        await store.close();
      } finally {
        releaseLock();
      }
    });
    const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
    const runId = `proxy-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
    const standaloneSessions = new StandaloneSessions({ runId, open: options.open, reserved: [adminToken] });
    // a sim upstream among them marks the run simulated, as `openforge run` marks its runs
    const run = await StandaloneRun.start(store, runId, (upstreams.find((u) => u.simulated) ?? upstreams[0])?.spec ?? '', options.logger);
    let summary: StandaloneRunSummary | undefined;
    cleanups.unshift(async () => (summary = await run.finish()));
    const proxy = await startProxy({
      upstreams: upstreams.map(({ config }) => config),
      sessions: standaloneSessions,
      sessionFactory: {
        create: (request) => {
          const created = standaloneSessions.create(request);
          run.sessionCreated(created);
          return created;
        },
      },
      grades: run,
      sink: run,
      lastRecordedSeq: async (rolloutId) => (await store.listCalls(rolloutId)).reduce((last, call) => Math.max(last, call.seq), 0),
      adminToken,
      policyModels: options.policyModels,
      sampling: options.sampling,
      tokenIn,
      family: upstreams.find((u) => u.family)?.family,
      ejection: options.ejection,
      host: options.host,
      port: options.port,
      logger: options.logger,
      // a sim upstream is served from this thread too, and its work would read as the proxy's
      warnWhenServingThreadBusy: !upstreams.some((u) => u.simulated),
    });
    // the proxy goes first: it waits for in-flight calls, which need the sims and the store
    cleanups.unshift(() => proxy.close());
    return {
      proxy,
      adminToken,
      runId,
      upstreams: upstreams.map(({ spec, config, simulated }) => ({ spec, url: config.url, simulated })),
      close: async () => {
        await cleanUp();
        const finished = summary;
        summary = undefined;
        return finished;
      },
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

async function resolveUpstreams(
  options: StandaloneProxyOptions,
  cleanups: (() => Promise<unknown>)[],
): Promise<{ spec: string; config: UpstreamConfig; simulated: boolean; family?: string }[]> {
  let tasks: Task[] | undefined;
  const resolved = [];
  for (const spec of options.upstreams) {
    if (!spec.startsWith('sim:')) {
      resolved.push({ spec, config: { url: checkedUrl(spec), kind: options.kind, apiKey: options.upstreamApiKey }, simulated: false });
      continue;
    }
    const policy = parseSimSpec(spec);
    if (policy.kind === 'replay') {
      throw new UserError(`${formatSimSpec(policy)} is not served by openforge proxy`, 'use sim:oracle or sim:noisy:<p>, or replay through openforge run');
    }
    if (!options.tasksDir)
      throw new UserError(`--tasks is required for ${formatSimSpec(policy)}`, 'point it at a task folder or a suite the simulated model solves');
    tasks ??= loadTasks(options.tasksDir);
    const sim = await startSimServer({ policy, tasks });
    cleanups.push(() => sim.close());
    resolved.push({ spec, config: { url: sim.url, kind: 'vllm' as const }, simulated: true, family: policy.family });
  }
  return resolved;
}

function checkedUrl(spec: string): string {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new UserError(
      `--upstream "${spec}" is neither a URL nor a sim spec`,
      'give a base URL such as http://127.0.0.1:8000/v1, or sim:oracle, or sim:noisy:0.3',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(
      `--upstream "${spec}": only http and https upstreams are supported`,
      'give a base URL such as http://127.0.0.1:8000/v1, or sim:oracle, or sim:noisy:0.3',
    );
  }
  if (url.username || url.password) {
    throw new UserError(
      `--upstream ${url.host}: the URL carries credentials`,
      'pass an upstream API key in OPENFORGE_UPSTREAM_API_KEY instead, so it stays out of process lists and records',
    );
  }
  return spec;
}
