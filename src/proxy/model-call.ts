import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProxySession } from '../store/types.js';
import { answerStream } from './answer-stream.js';
import { answerWhole } from './answer-whole.js';
import { sessionOf } from './auth-hook.js';
import { callLabel } from './call-label.js';
import { CLIENT_CLOSED_REQUEST, type CallOutcome } from './call-outcome.js';
import type { CallRecorder } from './call-recorder.js';
import type { CallSequence } from './call-sequence.js';
import type { InFlightCalls } from './in-flight.js';
import { ProxyHttpError, errorTypeForStatus } from './http-error.js';
import type { PauseSwitch } from './pause-switch.js';
import type { LocalCall, PreparedCall, Protocol } from './protocols/types.js';
import { writeJson } from './raw-reply.js';
import { recordedCall } from './recorded-call.js';
import { answerBeyondScript, answerScripted, type ScriptCursor } from './scripted-answers.js';
import { answerTurnLimit, type TurnBudget } from './turn-limit.js';
import type { UpstreamPool } from './upstream/upstream-pool.js';

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
}

/**
 * The handler for a protocol's model-call route: validate, forward upstream (with retries),
 * answer the harness whole or streamed, then record exactly one call for it. While paused, calls
 * are refused with 429 + Retry-After and not recorded: nothing reached the policy, so there is
 * no training data in them, and the harness's retry is recorded once it is served.
 */
export function modelCallHandler(deps: ModelCallDeps, protocol: Protocol) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = sessionOf(request);
    const retryAfterSec = deps.pause.retryAfterSec;
    if (retryAfterSec !== null) {
      const message = `the proxy is paused for a policy weight update: retry after ${retryAfterSec} s`;
      await reply
        .code(429)
        .header('retry-after', String(retryAfterSec))
        .send(protocol.errorBody(message, errorTypeForStatus(429), 'proxy_paused'));
      return;
    }
    const seq = deps.sequence.next(session.rolloutId);
    // The proxy writes every answer itself: streams must reach the socket unbuffered.
    reply.hijack();
    await deps.inFlight.track(serveCall(deps, protocol, session, seq, request.body, reply.raw));
  };
}

async function serveCall(
  deps: ModelCallDeps,
  protocol: Protocol,
  session: ProxySession,
  seq: number | Promise<number>,
  body: unknown,
  res: ServerResponse,
): Promise<void> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const elapsedMs = () => performance.now() - t0;
  const abort = new AbortController();
  const clientGone = () => abort.abort(new Error('client disconnected'));
  res.on('close', () => {
    if (!res.writableEnded) clientGone();
  });
  // the client may have hung up while its body was being read, before 'close' could be heard
  if (res.destroyed || !res.socket || res.socket.destroyed) clientGone();

  let call: PreparedCall | LocalCall | undefined;
  let outcome: CallOutcome;
  try {
    call = protocol.prepare(body);
    outcome = await forward(deps, protocol, call, session, body, res, abort.signal, elapsedMs);
  } catch (err) {
    outcome = failure(protocol, err, res, abort.signal, deps.pool.stickyUrl(session), elapsedMs);
  }
  const durationMs = elapsedMs();
  const record = recordedCall({ session, seq: await seq, protocol: protocol.name, call, requestBody: body, outcome, startedAt, durationMs });
  record.label = callLabel(record.label, record.model, deps.policyModels);
  deps.recorder.record(record);
}

async function forward(
  deps: ModelCallDeps,
  protocol: Protocol,
  call: PreparedCall | LocalCall,
  session: ProxySession,
  body: unknown,
  res: ServerResponse,
  signal: AbortSignal,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  if ('answerLocally' in call) {
    const body = await call.answerLocally({ post: (path, json) => deps.pool.post(path, json, session, signal) });
    const responseJson = writeJson(res, 200, body);
    return { status: 200, response: body, responseJson, error: null, ttfbMs: elapsedMs(), tokens: null, upstream: deps.pool.stickyUrl(session) };
  }
  const isPolicy = callLabel(call.label, call.model, deps.policyModels) === 'policy';
  const limit = session.maxPolicyCalls;
  if (limit !== undefined && isPolicy && deps.turns.spend(session.secret, limit)) {
    return answerTurnLimit(call, limit, res, deps.keepaliveMs, elapsedMs);
  }
  const scripted = isPolicy ? deps.scripts.take(session.secret, session.script) : undefined;
  if (scripted) return answerScripted(call, scripted, body, res, deps.keepaliveMs, elapsedMs);
  if (isPolicy && session.script && session.endAfterScript) {
    return answerBeyondScript(call, deps.scripts.arrived(session.secret), session.script.length, res, deps.keepaliveMs, elapsedMs);
  }
  const answer = await deps.pool.postChat(call.upstreamRequest, session, signal);
  if (!answer.ok) {
    const headers: Record<string, string> = answer.retryAfter ? { 'retry-after': answer.retryAfter } : {};
    const body = protocol.errorBody(answer.message, errorTypeForStatus(answer.status), 'upstream_error');
    writeJson(res, answer.status, body, headers);
    return { status: answer.status, response: null, error: answer.message, ttfbMs: elapsedMs(), tokens: null, upstream: answer.upstream };
  }
  const upstream = { url: answer.upstream, response: answer.response };
  if (call.stream) return answerStream(call, upstream, res, signal, deps.keepaliveMs, elapsedMs);
  return answerWhole(protocol, call, upstream, res, signal, elapsedMs);
}

function failure(
  protocol: Protocol,
  err: unknown,
  res: ServerResponse,
  signal: AbortSignal,
  upstream: string,
  elapsedMs: () => number,
): CallOutcome {
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
