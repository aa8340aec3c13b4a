import type { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { ChatRequestBody } from '../../engine-wire/chat-wire.js';
import { ROLLOUT_HEADER, TASK_HEADER } from '../../engine-wire/request-headers.js';
import type { ProxySession } from '../session.js';
import { errorMessage } from '../../util/errors.js';
import { ProxyHttpError } from '../http/http-error.js';
import type { EjectionPolicy, ForcedSampling, RetryPolicy, UpstreamConfig, UpstreamKind, UpstreamTimeouts } from '../types.js';
import { upstreamBody, upstreamBodyBytes } from './engine-request.js';
import { UpstreamAgents, readText, sendHttpRequest, type HttpRequest } from './http-client.js';
import { DEFAULT_EJECTION, ReplicaHealth, type ReplicaState } from './replica-health.js';
import { isRetryableStatus, retryDelayMs, sleep } from './retry.js';
import { stickyIndex } from './sticky-router.js';
import { upstreamErrorMessage } from './upstream-error-message.js';
import { DEFAULT_UPSTREAM_TIMEOUTS, UpstreamTimeoutError } from './upstream-timeouts.js';
import type { CallSignal } from '../calls/call-cancel.js';

interface Target {
  config: UpstreamConfig;
  /** The base URL with a trailing slash, so relative paths resolve under /v1/. */
  base: URL;
  chatCompletions: URL;
}

/** A 2xx answer whose body is still unread, or a final failure status after retries. */
export type UpstreamAnswer =
  { ok: true; upstream: string; response: Readable } | { ok: false; upstream: string; status: number; message: string; retryAfter: string | undefined };

/** Told of each failed attempt that is tried again, and of replicas leaving and rejoining routing. */
export interface UpstreamEvents {
  upstreamRetry(upstream: string, reason: string): void;
  upstreamEjected(upstream: string, forMs: number, failures: number): void;
  upstreamRestored(upstream: string): void;
}

/**
 * The upstream replicas of one proxy. A rollout sticks to one replica (hash of its id) while that
 * replica is in routing (see `ReplicaHealth`), else to the next one that is. Failed attempts are
 * retried with jittered backoff: on 408, 409 or 429 (a replica that is busy or paused) at the same
 * replica, on a 5xx or a connection error at the next one. Retries happen only before a 2xx answer is handed back, so
 * never after anything has been streamed to the harness. A connect timeout counts as a connection
 * error; an upstream that accepted the request and then timed out is not asked again (it may still
 * be generating), the call ends with 504.
 */
export class UpstreamPool {
  private readonly targets: Target[];
  private readonly agents = new UpstreamAgents();
  private readonly timeouts: UpstreamTimeouts;
  private readonly health: ReplicaHealth;
  private readonly events: UpstreamEvents | undefined;

  constructor(
    configs: UpstreamConfig[],
    private readonly retry: RetryPolicy,
    private readonly sampling: ForcedSampling | undefined,
    options: { timeouts?: Partial<UpstreamTimeouts>; ejection?: Partial<EjectionPolicy>; events?: UpstreamEvents } = {},
  ) {
    this.timeouts = { ...DEFAULT_UPSTREAM_TIMEOUTS, ...options.timeouts };
    if (configs.length === 0) throw new Error('the proxy needs at least one upstream');
    this.targets = configs.map((config) => {
      const base = new URL(config.url.endsWith('/') ? config.url : `${config.url}/`);
      return { config, base, chatCompletions: new URL('chat/completions', base) };
    });
    const urlOf = (index: number) => (this.targets[index] as Target).config.url;
    const { events } = options;
    this.health = new ReplicaHealth(
      this.targets.length,
      { ...DEFAULT_EJECTION, ...options.ejection },
      {
        ejected: (index, forMs, failures) => events?.upstreamEjected(urlOf(index), forMs, failures),
        restored: (index) => events?.upstreamRestored(urlOf(index)),
      },
    );
    this.events = events;
  }

  /** Each replica's URL and health, for /control/status. */
  replicas(): ({ url: string } & ReplicaState)[] {
    return this.targets.map((target, index) => ({ url: target.config.url, ...this.health.state(index) }));
  }

  /**
   * Sends a chat request. With `again`, the request is dropped once the first attempt is sent and a
   * retry asks `again` for it: a generation takes seconds, and the young-generation GC would copy a
   * request kept for it at every pass. Without `again`, the request is kept for retries.
   * With `source`, the bytes `request` was parsed from (every request `again` returns too), the body
   * sent is those bytes with the proxy's fields set in front (`upstreamBodyBytes`).
   */
  postChat(request: ChatRequestBody, session: ProxySession, signal: CallSignal, again?: () => ChatRequestBody, source?: Buffer): Promise<UpstreamAnswer> {
    const stream = request.stream === true;
    // No closure here may see `request` itself, or it would live with the call.
    let unsent: ChatRequestBody | undefined = request;
    const next = (): ChatRequestBody => {
      if (unsent === undefined) return (again as () => ChatRequestBody)();
      const first = unsent;
      if (again) unsent = undefined;
      return first;
    };
    return this.send(session, signal, (target) => ({
      method: 'POST',
      url: target.chatCompletions,
      headers: {
        ...this.headers(target, session),
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      body: this.chatBody(next(), target.config.kind, source),
      signal,
    }));
  }

  private chatBody(request: ChatRequestBody, kind: UpstreamKind, source: Buffer | undefined): string | Buffer[] {
    return (source && upstreamBodyBytes(request, source, kind, this.sampling)) ?? JSON.stringify(upstreamBody(request, kind, this.sampling));
  }

  /** A small JSON request that is not a chat completion, e.g. vLLM's `../tokenize` (served at the root). */
  post(path: string, body: unknown, session: ProxySession, signal: CallSignal): Promise<UpstreamAnswer> {
    return this.send(session, signal, (target) => ({
      method: 'POST',
      url: new URL(path, target.base),
      headers: { ...this.headers(target, session), 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal,
    }));
  }

  get(path: string, session: ProxySession, signal: CallSignal): Promise<UpstreamAnswer> {
    return this.send(session, signal, (target) => ({
      method: 'GET',
      url: new URL(path, target.base),
      headers: { ...this.headers(target, session), accept: 'application/json' },
      signal,
    }));
  }

  /** The base URL a rollout's calls go to first. */
  stickyUrl(session: ProxySession): string {
    return (this.targets[stickyIndex(session.rolloutId, this.targets.length)] as Target).config.url;
  }

  close(): void {
    this.agents.destroy();
  }

  private headers(target: Target, session: ProxySession): Record<string, string> {
    const headers: Record<string, string> = { [ROLLOUT_HEADER]: session.rolloutId };
    if (session.taskId) headers[TASK_HEADER] = session.taskId;
    if (target.config.apiKey) headers.authorization = `Bearer ${target.config.apiKey}`;
    return headers;
  }

  /**
   * `sendHttpRequest`, with a synchronous throw (e.g. a header Node refuses) turned into a rejection.
   * A function of its own so that no async frame holds the request: `send` would keep it, body and
   * all, in its saved state from the `await` to the answer's headers.
   */
  private attempt(request: HttpRequest): Promise<IncomingMessage> {
    try {
      return sendHttpRequest(this.agents, request, this.timeouts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private async send(session: ProxySession, signal: CallSignal, build: (target: Target) => HttpRequest): Promise<UpstreamAnswer> {
    const sticky = stickyIndex(session.rolloutId, this.targets.length);
    let index = this.health.pick(sticky);
    for (let attempt = 1; ; attempt++) {
      const target = this.targets[index] as Target;
      const last = attempt >= this.retry.attempts;
      // outside the try: a failure to build the request is the proxy's, not the upstream's
      const sent = this.attempt(build(target));
      let response: IncomingMessage;
      try {
        response = await sent;
      } catch (err) {
        if (signal.aborted) throw err;
        this.health.failed(index);
        const timedOut = err instanceof UpstreamTimeoutError;
        if (last || (timedOut && err.phase !== 'connect')) throw unreachable(target, err);
        this.events?.upstreamRetry(target.config.url, 'connection');
        index = this.health.pick(index + 1);
        await sleep(retryDelayMs(attempt, this.retry), signal);
        continue;
      }
      const status = response.statusCode ?? 502;
      if (status >= 500) this.health.failed(index);
      else this.health.answered(index);
      if (status >= 200 && status < 300) return { ok: true, upstream: target.config.url, response };
      const retryAfter = headerValue(response.headers['retry-after']);
      const message = upstreamErrorMessage(status, await readText(response).catch(errorMessage));
      if (!isRetryableStatus(status) || last) {
        return { ok: false, upstream: target.config.url, status, message, retryAfter };
      }
      this.events?.upstreamRetry(target.config.url, String(status));
      // a 5xx at the next replica; a busy or paused one (429, 408, 409) is asked again, unless its failures took it out of routing
      index = this.health.pick(status >= 500 ? index + 1 : index);
      await sleep(retryDelayMs(attempt, this.retry, retryAfter), signal);
    }
  }
}

function unreachable(target: Target, err: unknown): unknown {
  if (err instanceof UpstreamTimeoutError) {
    return new ProxyHttpError(504, `upstream ${target.config.url} timed out: ${err.message}`, 'upstream_error', 'upstream_timeout');
  }
  return new ProxyHttpError(502, `upstream ${target.config.url} unreachable: ${errorMessage(err)}`, 'upstream_error', 'upstream_unreachable');
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
