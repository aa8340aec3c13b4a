import Fastify, { type FastifyInstance } from 'fastify';
import { authHook } from './auth/auth-hook.js';
import { CallRecorder } from './recording/call-recorder.js';
import { CallSequence } from './calls/call-sequence.js';
import { registerControlRoutes } from './control/control-routes.js';
import { answerClientError, openAIErrorBody } from './http/http-error.js';
import { InFlightCalls } from './calls/in-flight.js';
import { rejectDeepJson } from './http/json-depth.js';
import { MultiHostServers } from './http/listen.js';
import { modelCallHandler } from './calls/model-call.js';
import { ScriptCursor } from './calls/scripted-answers.js';
import { DEFAULT_SERVING_LOAD_WINDOW_MS, ServingLoadMonitor } from './control/serving-load.js';
import { TurnBudget } from './calls/turn-limit.js';
import { modelsHandler } from './http/models-route.js';
import { PauseSwitch } from './control/pause-switch.js';
import { ProxyControl } from './control/proxy-control.js';
import { ProxyMetrics, type MetricsSnapshot } from './control/proxy-metrics.js';
import { endpoints } from './protocols/registry.js';
import { installRequestErrors } from './http/request-errors.js';
import type { ProxyOptions } from './types.js';
import { DEFAULT_RETRY } from './upstream/retry.js';
import { UpstreamPool } from './upstream/upstream-pool.js';
import { refuseWebSocketUpgrades } from './http/websocket-refusal.js';
import { TokenInEngine } from './token-in/token-in-engine.js';

export interface RunningProxy {
  /** Base URL of the first host, without /v1, e.g. http://127.0.0.1:4123. */
  url: string;
  port: number;
  /** Stops listening, waits for in-flight calls and their records. */
  close(): Promise<void>;
  app: FastifyInstance;
  /** What `GET /metrics` reads, for a process that exposes several proxies' metrics as one. */
  metrics: { snapshot(): Promise<MetricsSnapshot> };
  /** What `/control/*` does, in place (pause, resume, drain, status). */
  control: ProxyControl;
}

const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
const DEFAULT_KEEPALIVE_MS = 10_000;
/** How long `close` lets in-flight calls finish before cutting their connections. */
const CLOSE_GRACE_MS = 10_000;

/** Every /v1 route is served bare (secret as API key) and under /s/<secret>. */
const PREFIXES = ['/v1', '/s/:secret/v1'];

/**
 * Starts the recording proxy. With `hosts`, one fastify instance serves every host on the same
 * port (see `MultiHostServers`); `url` is the first host's.
 */
export async function startProxy(opts: ProxyOptions): Promise<RunningProxy> {
  const hosts = opts.hosts?.length ? opts.hosts : [opts.host ?? '127.0.0.1'];
  const bodyLimit = opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const logger = opts.logger ?? console;
  const servers = new MultiHostServers();
  const app = Fastify({ bodyLimit, logger: false, serverFactory: servers.factory, return503OnClosing: true, clientErrorHandler: answerClientError });

  // first: it checks its option before anything is opened
  const load = new ServingLoadMonitor(opts.servingLoadWindowMs ?? DEFAULT_SERVING_LOAD_WINDOW_MS, opts.warnWhenServingThreadBusy ? logger : undefined);
  const inFlight = new InFlightCalls();
  const pause = new PauseSwitch();
  const metrics: ProxyMetrics = new ProxyMetrics({
    inFlight: () => inFlight.size,
    paused: () => pause.paused,
    held: () => pause.held,
    pendingRecords: () => recorder.pendingCount,
    servingThreadBusy: () => load.current().busy,
    policyCallsWithoutTokenIds: () => opts.sink.policyCallsWithoutTokenIds,
    upstreams: () => pool.replicas(),
  });
  const pool: UpstreamPool = new UpstreamPool(opts.upstreams, { ...DEFAULT_RETRY, ...opts.retry }, opts.sampling, {
    timeouts: opts.upstreamTimeouts,
    ejection: opts.ejection,
    events: {
      upstreamRetry: (url, reason) => metrics.upstreamRetry(url, reason),
      upstreamEjected: (url, forMs, failures) => {
        metrics.upstreamEjected(url);
        logger.warn(
          `proxy: upstream ${url} failed ${failures} times in a row; its rollouts' calls go to the next replica for ${forMs / 1000} s, then it is tried again`,
        );
      },
      upstreamRestored: (url) => logger.warn(`proxy: upstream ${url} answers again; its rollouts' calls go back to it`),
    },
  });
  const recorder: CallRecorder = new CallRecorder(opts.sink, logger, metrics);
  const deps = {
    pool,
    sequence: new CallSequence(opts.lastRecordedSeq),
    recorder,
    inFlight,
    keepaliveMs: opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
    pause,
    policyModels: opts.policyModels,
    turns: new TurnBudget(),
    scripts: new ScriptCursor(),
    metrics,
    tokenIn: opts.tokenIn ? new TokenInEngine(pool, opts.tokenIn) : undefined,
    family: opts.tokenIn?.family.name ?? opts.family ?? null,
  };
  const control = new ProxyControl({ pause, inFlight, recorder, load: () => load.current(), upstreams: () => pool.replicas() });
  let baseUrl = '';

  installRequestErrors(app, bodyLimit, logger);
  app.addHook('preValidation', rejectDeepJson);
  refuseWebSocketUpgrades(app);
  app.get('/health', async () => ({ status: 'ok' }));
  registerControlRoutes(app, {
    access: { adminToken: opts.adminToken, sessions: opts.sessions },
    control,
    metrics,
    sessionFactory: opts.sessionFactory,
    grades: opts.grades,
    baseUrl: () => baseUrl,
  });
  for (const prefix of PREFIXES) {
    app.get(`${prefix}/models`, { onRequest: authHook(opts.sessions, openAIErrorBody) }, modelsHandler(pool));
    for (const protocol of endpoints()) {
      for (const path of protocol.paths) {
        app.post(`${prefix}${path}`, { onRequest: authHook(opts.sessions, protocol.errorBody) }, modelCallHandler(deps, protocol));
      }
    }
  }

  const [firstHost, ...otherHosts] = hosts as [string, ...string[]];
  try {
    await app.listen({ host: firstHost, port: opts.port ?? 0 });
    await servers.listenExtra(otherHosts, servers.port());
  } catch (err) {
    await servers.closeExtra();
    await app.close();
    pool.close();
    throw err;
  }
  // watched from here on: the start-up's own work is no load
  load.start();
  const port = servers.port();
  baseUrl = `http://${firstHost.includes(':') ? `[${firstHost}]` : firstHost}:${port}`;

  return {
    url: baseUrl,
    port,
    app,
    metrics,
    control,
    async close() {
      const stopped = Promise.all([servers.closeExtra(), app.close()]);
      await inFlight.settled(CLOSE_GRACE_MS);
      servers.closeAllConnections();
      await stopped;
      pool.close();
      load.close();
      await recorder.flush();
    },
  };
}
