import { randomBytes } from 'node:crypto';
import type { RunConfig, SamplingSettings } from '../config/run.js';
import type { Task } from '../config/task.js';
import { answerFromAssistantMessage } from '../sim/assistant-answer.js';
import type { AssistantChatMessage } from '../sim/chat-request.js';
import type { PolicyAnswer } from '../sim/policies/types.js';
import { parseSimSpec } from '../sim/policies/sim-spec.js';
import { startSimServer } from '../sim/server.js';
import type { MetricsSnapshot } from '../proxy/control/proxy-metrics.js';
import type { HoldOptions } from '../proxy/control/proxy-control.js';
import { startProxy } from '../proxy/server.js';
import { tokenInOptions } from '../proxy/token-in/token-in-setup.js';
import type { ForcedSampling, SessionResolver } from '../proxy/types.js';
import type { RunNetwork } from '../sandbox/types.js';
import type { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';

export interface ModelEndpoint {
  /** Port of the recording proxy, bound on 127.0.0.1 and on the run network's proxy host. */
  port: number;
  /** True when the upstream is the built-in simulated model. */
  simulated: boolean;
  /** New model calls get 429 + Retry-After (around a weight update); calls in flight finish. */
  /** With `hold`, new model calls wait for the resume (each at most `maxHoldSec`) instead of being refused. */
  pause(retryAfterSec?: number, hold?: HoldOptions): Promise<void>;
  /** `weightVersion`: the weights the upstream serves from now on, recorded with every call it answers. */
  resume(weightVersion?: string): Promise<void>;
  /** Pauses, then waits up to `timeoutSec` for the calls in flight to end and be recorded. */
  drain(timeoutSec: number, retryAfterSec?: number, hold?: HoldOptions): Promise<DrainState>;
  /** The proxy's Prometheus metrics, to be served with the caller's own. */
  metrics(): Promise<MetricsSnapshot>;
  close(): Promise<void>;
}

export interface DrainState {
  /** No call in flight and every record written. */
  drained: boolean;
  inFlight: number;
  pendingRecords: number;
}

/**
 * What a harness's model calls go through: the recording proxy in front of the configured upstream,
 * starting the simulated model in-process when the upstream is a `sim:` spec.
 */
export async function startModelEndpoint(opts: {
  model: RunConfig['model'];
  tasks: Task[];
  store: Store;
  sessions: SessionResolver;
  network: RunNetwork;
  /** Bearer token of the proxy's /control routes and /metrics; by default a random one nobody holds (this process controls its proxy in place). */
  adminToken?: string;
}): Promise<ModelEndpoint> {
  const { model } = opts;
  const simulated = model.upstream.startsWith('sim:');
  let upstreamUrl = model.upstream;
  let closeSim: (() => Promise<void>) | undefined;
  let simWeights: ((version: string | undefined) => void) | undefined;
  if (simulated && model.replicas) {
    throw new UserError(
      `model.replicas needs model.upstream to be a server of the same model, not "${model.upstream}"`,
      'make model.upstream one of the URLs, or drop model.replicas',
    );
  }
  if (simulated) {
    const spec = parseSimSpec(model.upstream);
    const replayAnswers = spec.kind === 'replay' ? await recordedAnswers(opts.store, spec.rolloutId) : undefined;
    const sim = await startSimServer({ policy: spec, tasks: opts.tasks, replayAnswers });
    closeSim = () => sim.close();
    simWeights = (version) => sim.setWeightVersion(version);
    upstreamUrl = sim.url;
  } else if (!/^https?:\/\//.test(upstreamUrl)) {
    throw new UserError(
      `model.upstream "${upstreamUrl}" is neither a sim: spec nor an http(s) URL`,
      'use sim:oracle, sim:noisy:<p>, sim:replay:<rollout> or a base URL such as http://127.0.0.1:8000/v1',
    );
  }
  // Rollouts never see the token: their containers get a session secret only.
  const adminToken = opts.adminToken ?? randomBytes(24).toString('base64url');
  const sampling = forcedSampling(model.name, model.sampling);
  const sim = simulated ? { family: parseSimSpec(model.upstream).family } : undefined;
  try {
    const tokenIn = model.token_in
      ? await tokenInOptions({
          tokenizer: model.tokenizer,
          upstreams: [{ url: upstreamUrl, sim }, ...(model.replicas ?? []).map((url) => ({ url }))],
          kind: model.kind,
          sampling,
          transient: model.transient_context,
          options: { tokenIn: 'model.token_in', tokenizer: 'model.tokenizer' },
        })
      : undefined;
    const proxy = await startProxy({
      upstreams: [upstreamUrl, ...(model.replicas ?? [])].map((url) => ({ url, kind: model.kind })),
      sessions: opts.sessions,
      sink: opts.store,
      sampling,
      tokenIn,
      family: sim?.family,
      hosts: ['127.0.0.1', ...(opts.network.proxyHost ? [opts.network.proxyHost] : [])],
      port: opts.network.proxyPort ?? 0,
      policyModels: [model.name],
      adminToken,
    });
    return {
      port: proxy.port,
      simulated,
      pause: async (retryAfterSec, hold) => void proxy.control.pause(retryAfterSec, hold),
      // the sim serves the new weights before the calls held meanwhile reach it
      resume: async (weightVersion) => {
        if (weightVersion !== undefined) simWeights?.(weightVersion);
        proxy.control.resume(weightVersion);
      },
      async drain(timeoutSec, retryAfterSec, hold) {
        const state = await proxy.control.drain(timeoutSec, retryAfterSec, hold);
        return { drained: state.drained, inFlight: state.in_flight, pendingRecords: state.pending_records };
      },
      metrics: () => proxy.metrics.snapshot(),
      async close() {
        await proxy.close();
        await closeSim?.();
      },
    };
  } catch (err) {
    await closeSim?.();
    throw err;
  }
}

/** run.yaml's (or a rollout request's) sampling settings as the proxy forces them onto every engine request. */
export function forcedSampling(name: string, settings: SamplingSettings): ForcedSampling {
  const { temperature, max_tokens: maxTokens, logprobs: topLogprobs, ...rest } = settings;
  const fields = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  return {
    model: name,
    temperature,
    maxTokens,
    ...(Object.keys(fields).length ? { fields } : {}),
    ...(topLogprobs !== undefined ? { topLogprobs } : {}),
  };
}

/** The answers a recorded rollout's policy calls received, for `sim:replay:<rollout>`. */
export async function recordedAnswers(store: Store, rolloutId: string): Promise<PolicyAnswer[]> {
  const calls = (await store.listCalls(rolloutId)).filter((c) => c.label === 'policy' && c.status === 200);
  if (calls.length === 0) {
    throw new UserError(
      `sim:replay:${rolloutId}: no recorded policy calls for that rollout in ${store.file}`,
      'use a rollout id from this output folder (openforge.db, table rollouts)',
    );
  }
  return calls.map((c) => {
    const message = (c.response as { choices?: { message?: AssistantChatMessage }[] } | null)?.choices?.[0]?.message;
    if (!message) throw new UserError(`sim:replay:${rolloutId}: call ${c.seq} has no recorded assistant message`);
    return answerFromAssistantMessage(message);
  });
}
