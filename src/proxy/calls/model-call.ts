import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatRequestBody } from '../../engine-wire/chat-wire.js';
import type { ProxySession } from '../session.js';
import { answerStream } from './answer-stream.js';
import { answerWhole } from './answer-whole.js';
import { sessionOf } from '../auth/auth-hook.js';
import { callLabel } from './call-label.js';
import { CLIENT_CLOSED_REQUEST, type CallOutcome } from './call-outcome.js';
import type { CallRecorder } from '../recording/call-recorder.js';
import type { CallSequence } from './call-sequence.js';
import { ProxyHttpError, errorTypeForStatus } from '../http/http-error.js';
import type { InFlightCalls } from './in-flight.js';
import type { PauseSwitch } from '../control/pause-switch.js';
import type { ProxyMetrics } from '../control/proxy-metrics.js';
import type { AnswerTranslator, Endpoint, LocalCall, PreparedCall } from '../protocols/types.js';
import { takeJsonBody, type JsonBody } from '../http/raw-body.js';
import { writeJson } from '../http/raw-reply.js';
import { startEventStream } from '../http/sse-writer.js';
import { recordedCall, type CallFacts } from '../recording/recorded-call.js';
import { answerBeyondScript, answerScripted, type ScriptCursor } from './scripted-answers.js';
import { answerTurnLimit, type TurnBudget } from './turn-limit.js';
import type { UpstreamAnswer, UpstreamPool } from '../upstream/upstream-pool.js';
import { CallCancel, type CallSignal } from './call-cancel.js';
import type { TokenInEngine } from '../token-in/token-in-engine.js';

export interface ModelCallDeps {
  pool: UpstreamPool;
  sequence: CallSequence;
  recorder: CallRecorder;
  inFlight: InFlightCalls;
  keepaliveMs: number;
  pause: PauseSwitch;
  policyModels: readonly string[] | undefined;
  turns: TurnBudget;
  scripts: ScriptCursor;
  metrics: ProxyMetrics;
  /** Token-in/token-out: policy calls go to the engine as token ids (see `TokenInEngine`). */
  tokenIn: TokenInEngine | undefined;
  /** The model family of the upstream, when known: recorded with every call. */
  family: string | null;
}

/**
 * The handler for a protocol's model-call route: validate, forward upstream (with retries),
 * answer the harness whole or streamed, then record exactly one call for it. While paused, calls
 * are refused with 429 + Retry-After and not recorded: nothing reached the policy, so there is
 * no training data in them, and the harness's retry is recorded once it is served.
 */
export function modelCallHandler(deps: ModelCallDeps, protocol: Endpoint) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const rolloutSession = sessionOf(request);
    const retryAfterSec = deps.pause.retryAfterSec;
    if (retryAfterSec !== null && deps.pause.maxHoldSec !== null) return holdThenServe(deps, protocol, rolloutSession, request, reply);
    if (retryAfterSec !== null) {
      const message = `the proxy is paused for a policy weight update: retry after ${retryAfterSec} s`;
      deps.metrics.pausedRefusal(protocol.name);
      await reply
        .code(429)
        .header('retry-after', String(retryAfterSec))
        .send(protocol.errorBody(message, errorTypeForStatus(429), 'proxy_paused'));
      return;
    }
    const seq = deps.sequence.next(rolloutSession.rolloutId);
    const body = takeJsonBody(request);
    // The proxy writes every answer itself: streams must reach the socket unbuffered.
    reply.hijack();
    // returned, not awaited: this function's saved state would keep `body` for the whole call
    return deps.inFlight.track(serveCall(deps, protocol, rolloutSession, seq, body, reply.raw));
  };
}

/**
 * Hold mode: the call waits, its connection open, until the proxy resumes; a stream gets its headers and a
 * keepalive comment every `keepaliveMs` meanwhile (a whole answer gets nothing), so no harness sees an error
 * or an idle timeout. Then it is served as any call (sequence number, upstream, record). Past its
 * `max_hold_sec` it is refused with 429 as in refuse mode; a client that hangs up while held is not recorded
 * (nothing reached the policy). Held calls are not in flight: a drain does not wait for them.
 */
async function holdThenServe(deps: ModelCallDeps, protocol: Endpoint, session: ProxySession, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = takeJsonBody(request);
  reply.hijack();
  const res = reply.raw;
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) gone.abort();
  });
  if (res.destroyed || !res.socket || res.socket.destroyed) gone.abort();
  const stream = (body.parsed as { stream?: unknown } | null)?.stream === true;
  const keepalive = stream ? holdStream(res, deps.keepaliveMs) : undefined;
  const end = await deps.pause.hold(gone.signal);
  clearInterval(keepalive);
  if (end === 'gone') return;
  if (end === 'expired') {
    const retryAfterSec = deps.pause.retryAfterSec ?? 1;
    const message = `the proxy held this call for its max_hold_sec and is still paused for a policy weight update: retry after ${retryAfterSec} s`;
    deps.metrics.pausedRefusal(protocol.name);
    writeJson(res, 429, protocol.errorBody(message, errorTypeForStatus(429), 'proxy_paused'), { 'retry-after': String(retryAfterSec) });
    return;
  }
  const seq = deps.sequence.next(session.rolloutId);
  return deps.inFlight.track(serveCall(deps, protocol, session, seq, body, res));
}

/** A held stream's headers, and its keepalive comments until the hold ends. */
function holdStream(res: ServerResponse, keepaliveMs: number): NodeJS.Timeout {
  startEventStream(res);
  return setInterval(() => {
    if (!res.writableEnded && !res.destroyed) res.write(': keepalive\n\n');
  }, keepaliveMs);
}

/**
 * Prepares the call and starts answering it, then hands the wait to `finishCall`. Not async on
 * purpose: an async function keeps every parameter and local until it returns, and a call waits
 * for its model for seconds. Only what the answer and the record need crosses the wait, never the
 * parsed request (the young-generation GC would copy its texts at every pass).
 */
function serveCall(
  deps: ModelCallDeps,
  protocol: Endpoint,
  session: ProxySession,
  seq: number | Promise<number>,
  body: JsonBody,
  res: ServerResponse,
): Promise<void> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const elapsedMs = () => performance.now() - t0;
  const cancel = new CallCancel();
  const clientGone = () => cancel.abort(new Error('client disconnected'));
  res.on('close', () => {
    if (!res.writableEnded) clientGone();
  });
  // the client may have hung up while its body was being read, before 'close' could be heard
  if (res.destroyed || !res.socket || res.socket.destroyed) clientGone();

  let facts: CallFacts | undefined;
  let answering: Promise<CallOutcome>;
  try {
    const call = protocol.prepare(body.parsed);
    facts = { model: call.model, stream: call.stream, label: call.label };
    answering = forward(deps, protocol, call, session, body, res, cancel, elapsedMs);
  } catch (err) {
    answering = Promise.reject(err);
  }
  // the request as the record keeps it: its bytes when the proxy has them (outside the V8 heap)
  const request = body.bytes ?? body.parsed;
  return finishCall(deps, protocol, session, seq, facts, request, answering, res, cancel, startedAt, elapsedMs);
}

async function finishCall(
  deps: ModelCallDeps,
  protocol: Endpoint,
  session: ProxySession,
  seq: number | Promise<number>,
  call: CallFacts | undefined,
  request: Buffer | unknown,
  answering: Promise<CallOutcome>,
  res: ServerResponse,
  signal: CallSignal,
  startedAt: number,
  elapsedMs: () => number,
): Promise<void> {
  let outcome: CallOutcome;
  try {
    outcome = await answering;
  } catch (err) {
    outcome = failure(protocol, err, res, signal, deps.pool.stickyUrl(session), elapsedMs);
  }
  const durationMs = elapsedMs();
  const record = recordedCall({ session, seq: await seq, protocol: protocol.name, call, request, outcome, startedAt, durationMs });
  record.label = callLabel(record.label, record.model, deps.policyModels);
  record.tokenMode = deps.tokenIn && record.label === 'policy' ? 'token_in' : 'chat';
  record.family = deps.family;
  // the weights that answered: a drain before the update lets every call in flight end first
  record.weightVersion = deps.pause.weightVersion;
  deps.metrics.callFinished(record);
  deps.recorder.record(record);
}

/** Answers the call; throws or rejects with what `failure` turns into an error answer. Not async, like `serveCall`. */
function forward(
  deps: ModelCallDeps,
  protocol: Endpoint,
  call: PreparedCall | LocalCall,
  session: ProxySession,
  body: JsonBody,
  res: ServerResponse,
  signal: CallSignal,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  if ('answerLocally' in call) return answerLocally(deps, call, session, res, signal, elapsedMs);
  const isPolicy = callLabel(call.label, call.model, deps.policyModels) === 'policy';
  const limit = session.maxPolicyCalls;
  if (limit !== undefined && isPolicy && deps.turns.spend(session.secret, limit)) {
    return answerTurnLimit(call, limit, res, deps.keepaliveMs, elapsedMs);
  }
  const scripted = isPolicy ? deps.scripts.take(session.secret, session.script) : undefined;
  if (scripted) return answerScripted(call, scripted, body.parsed, res, deps.keepaliveMs, elapsedMs);
  if (isPolicy && session.script && session.endAfterScript) {
    return answerBeyondScript(call, deps.scripts.arrived(session.secret), session.script.length, res, deps.keepaliveMs, elapsedMs);
  }
  const translator: AnswerTranslator = {
    stream: call.stream,
    translateResponse: call.translateResponse,
    answerFromBytes: call.answerFromBytes,
    streamTranslator: call.streamTranslator,
    streamCut: call.streamCut,
  };
  const source = call.upstreamRequestIsBody ? body.bytes : undefined;
  const sent =
    deps.tokenIn && isPolicy
      ? deps.tokenIn.post(call.upstreamRequest, session, signal)
      : deps.pool.postChat(call.upstreamRequest, session, signal, body.bytes && againFrom(protocol, body.bytes), source);
  return answerFromUpstream(deps, protocol, translator, sent, res, signal, elapsedMs);
}

/** The upstream request prepared again from the harness's bytes, for a retry: nothing parsed waits with the call. */
function againFrom(protocol: Endpoint, bytes: Buffer): () => ChatRequestBody {
  return () => (protocol.prepare(JSON.parse(bytes.toString('utf8'))) as PreparedCall).upstreamRequest;
}

async function answerLocally(
  deps: ModelCallDeps,
  call: LocalCall,
  session: ProxySession,
  res: ServerResponse,
  signal: CallSignal,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  const body = await call.answerLocally({ post: (path, json) => deps.pool.post(path, json, session, signal) });
  const responseJson = writeJson(res, 200, body);
  return { status: 200, response: body, responseJson, error: null, ttfbMs: elapsedMs(), tokens: null, upstream: deps.pool.stickyUrl(session) };
}

async function answerFromUpstream(
  deps: ModelCallDeps,
  protocol: Endpoint,
  translator: AnswerTranslator,
  answering: Promise<UpstreamAnswer>,
  res: ServerResponse,
  signal: CallSignal,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  const answer = await answering;
  if (!answer.ok) {
    const headers: Record<string, string> = answer.retryAfter ? { 'retry-after': answer.retryAfter } : {};
    const body = protocol.errorBody(answer.message, errorTypeForStatus(answer.status), 'upstream_error');
    writeJson(res, answer.status, body, headers);
    return { status: answer.status, response: null, error: answer.message, ttfbMs: elapsedMs(), tokens: null, upstream: answer.upstream };
  }
  const upstream = { url: answer.upstream, response: answer.response };
  if (translator.stream) return answerStream(translator, upstream, res, signal, deps.keepaliveMs, elapsedMs);
  return answerWhole(protocol, translator, upstream, res, signal, elapsedMs);
}

function failure(protocol: Endpoint, err: unknown, res: ServerResponse, signal: CallSignal, upstream: string, elapsedMs: () => number): CallOutcome {
  if (signal.aborted) {
    return { status: CLIENT_CLOSED_REQUEST, response: null, error: 'client disconnected', ttfbMs: null, tokens: null, upstream };
  }
  const known = err instanceof ProxyHttpError;
  const status = known ? err.status : 500;
  const message = known ? err.message : `proxy error: ${err instanceof Error ? err.message : String(err)}`;
  const body = protocol.errorBody(message, known ? err.type : 'server_error', known ? err.code : 'proxy_error');
  writeJson(res, status, body);
  return { status, response: null, error: message, ttfbMs: elapsedMs(), tokens: null, upstream };
}
