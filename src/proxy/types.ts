import type { ProxySession } from './session.js';
import type { RecordedCall } from '../records/call.js';
import type { ModelFamily } from '../families/family.js';

/** Finds the rollout session a secret belongs to. */
export interface SessionResolver {
  bySecret(secret: string): ProxySession | undefined;
}

/** Creates sessions on `POST /control/sessions` (standalone proxies, which have no orchestrator). */
export interface SessionFactory {
  create(request: { rolloutId?: string; taskId?: string }): ProxySession;
}

/** Takes rewards for rollouts on `POST /control/rollouts/<id>/reward` (standalone proxies, graded from outside). */
export interface RolloutGrades {
  /** False when the rollout is not one of this proxy's. */
  setReward(rolloutId: string, reward: number, details: unknown): Promise<boolean>;
}

/** Where finished calls go; the orchestrator passes the SQLite store. */
export interface CallSink {
  record(call: RecordedCall): Promise<void>;
  /** Writes what is held back for batching now (see the store's `recordLingerMs`). */
  flush?(): Promise<void>;
  /** Policy calls recorded flagged as having come back without token ids, when the sink counts them (the store does). */
  readonly policyCallsWithoutTokenIds?: number;
}

export type UpstreamKind = 'vllm' | 'sglang' | 'openai-compatible';

export interface UpstreamConfig {
  /** Base URL including /v1, e.g. http://127.0.0.1:8000/v1. */
  url: string;
  kind: UpstreamKind;
  /** Sent as Bearer to the upstream; never recorded or logged. */
  apiKey?: string;
}

/** Sampling settings forced onto every upstream request. */
export interface ForcedSampling {
  model?: string;
  temperature?: number;
  /** A cap: the harness may ask for fewer tokens, never more. */
  maxTokens?: number;
  /**
   * Other sampling fields set on every engine request as named here (vLLM's names: top_p, top_k, min_p,
   * stop, presence_penalty, frequency_penalty, repetition_penalty, seed); `stop` is added to the harness's own.
   */
  fields?: Record<string, unknown>;
  /** Top logprobs per sampled token the engine is asked for. */
  topLogprobs?: number;
}

export interface RetryPolicy {
  /** Total attempts including the first (default 3). */
  attempts: number;
  /** Base of the exponential backoff; each wait is a random value in [0, base·2^n] (default 200 ms). */
  baseDelayMs: number;
  /** Upper bound for one wait, also for an upstream Retry-After (default 5 000 ms). */
  maxDelayMs: number;
}

/** When a replica is left out of routing (see `ReplicaHealth`); only with two replicas or more. */
export interface EjectionPolicy {
  /** Failed attempts in a row (connection errors, timeouts, 5xx) that eject a replica (default 3). */
  failuresToEject: number;
  /** How long the first ejection lasts; each next one, without an answer between, twice as long (default 5 000 ms). */
  baseEjectionMs: number;
  /** Upper bound for one ejection (default 120 000 ms). */
  maxEjectionMs: number;
}

/** Deadlines for one upstream request; each one ends the call with 504 (or an error event mid-stream). */
export interface UpstreamTimeouts {
  /** Opening a new connection (default 10 000 ms); retried at the next replica like a refused connection. */
  connectMs: number;
  /** From sending the request to the response headers, i.e. the whole answer when not streaming (default 300 000 ms). */
  firstByteMs: number;
  /** Silence between two pieces of the response body (default 300 000 ms). */
  idleMs: number;
}

export interface ProxyLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface ProxyOptions {
  upstreams: UpstreamConfig[];
  sessions: SessionResolver;
  sink: CallSink;
  sampling?: ForcedSampling;
  /** One host to bind (default 127.0.0.1). */
  host?: string;
  /** Several hosts bound on the same port, e.g. 127.0.0.1 plus a Docker bridge gateway; wins over `host`. */
  hosts?: string[];
  /** 0 or absent picks a free port (the same one on every host). */
  port?: number;
  /** Default 32 MiB. */
  bodyLimitBytes?: number;
  retry?: Partial<RetryPolicy>;
  ejection?: Partial<EjectionPolicy>;
  /** SSE keepalive comment after this much upstream silence (default 10 000 ms). */
  keepaliveMs?: number;
  /** Default: console. Messages never contain API keys or secrets. */
  logger?: ProxyLogger;
  /** The window over which /control/status reports how busy the serving thread is (default 10 000 ms). */
  servingLoadWindowMs?: number;
  /**
   * Warn (through `logger`) when the serving thread is ≥ 90 % busy over a window, once per such spell. For
   * a proxy of its own (`openforge proxy`); `openforge run`'s shares its thread with the orchestrator.
   */
  warnWhenServingThreadBusy?: boolean;
  /**
   * Model names that are policy turns. When set, a call asking for any other model is labelled
   * `helper` (titles, summaries by a small/fast alias); unset, every model call is `policy`.
   */
  policyModels?: string[];
  upstreamTimeouts?: Partial<UpstreamTimeouts>;
  /**
   * Required as `Authorization: Bearer <token>` on /control/* routes. Unset, those routes answer
   * loopback clients only, so a rollout's container can never pause the proxy or mint sessions.
   */
  adminToken?: string;
  /** Enables `POST /control/sessions`. */
  sessionFactory?: SessionFactory;
  /** Enables `POST /control/rollouts/<id>/reward`. */
  grades?: RolloutGrades;
  /**
   * The last sequence number already stored for a rollout, asked once per rollout per process, so
   * a proxy reopening an existing store continues numbering instead of colliding (default: 0).
   */
  lastRecordedSeq?: (rolloutId: string) => Promise<number>;
  /**
   * Token-in/token-out: policy calls are sent to the engine as the rollout's exact token ids (vLLM
   * `/v1/completions`, SGLang `/generate`) and parsed by the family. Absent: Chat Completions go through.
   */
  tokenIn?: TokenInOptions;
  /** The upstream's model family when known without token-in (a `sim:…@family`): recorded with every call. */
  family?: string;
}

/** Engines that take a prompt of token ids: vLLM's `/v1/completions`, SGLang's `/generate`. */
export type TokenInKind = 'vllm' | 'sglang';

/** What a token-in call that leaves out the user messages its served request ended with gets (see `TokenHistories`). */
export type TransientPolicy = 'keep' | 'render';

/** The token-in mode's family and engine (see `TokenInEngine`). */
export interface TokenInOptions {
  /** Renders, tokenizes and parses: the model's own chat template, tokenizer and parsers. */
  family: ModelFamily;
  kind: TokenInKind;
  sampling?: ForcedSampling;
  /** The model's context: without a limit of the harness's or the run's, an answer may fill what the prompt leaves. */
  maxModelLen: number;
  /** Send the chat request along as `openforge_chat`, which the simulated model's scripted policies read. */
  sendConversation: boolean;
  /** A request that leaves out the user messages the served one ended with: continued with them kept (`keep`), or rendered whole. */
  transient?: TransientPolicy;
}
