import type { ProtocolName, ProxySession, RecordedCall } from '../store/types.js';
import type { CallOutcome } from './call-outcome.js';
import type { PreparedCall } from './protocols/types.js';
import { rawJsonOf } from './raw-body.js';

export interface FinishedCall {
  session: ProxySession;
  seq: number;
  protocol: ProtocolName;
  /** Undefined when the harness's request did not validate. */
  call: Pick<PreparedCall, 'model' | 'stream' | 'label'> | undefined;
  /** The body exactly as the harness sent it. */
  requestBody: unknown;
  outcome: CallOutcome;
  startedAt: number;
  durationMs: number;
}

/** The store's record of one call. Built from bodies and outcomes only, so no header (and no key) can reach it. */
export function recordedCall(finished: FinishedCall): RecordedCall {
  const { session, call, requestBody, outcome } = finished;
  const tokens = outcome.tokens;
  const body = typeof requestBody === 'object' && requestBody !== null ? (requestBody as Record<string, unknown>) : {};
  return {
    rolloutId: session.rolloutId,
    seq: finished.seq,
    label: call?.label ?? 'policy',
    protocol: finished.protocol,
    model: call?.model ?? (typeof body.model === 'string' ? body.model : ''),
    stream: call?.stream ?? body.stream === true,
    request: requestBody,
    requestJson: rawJsonOf(requestBody),
    response: outcome.response,
    responseJson: outcome.responseJson,
    status: outcome.status,
    error: outcome.error,
    promptTokenIds: tokens?.promptTokenIds ?? null,
    completionTokenIds: tokens?.completionTokenIds ?? null,
    logprobs: tokens?.logprobs ?? null,
    finishReason: tokens?.finishReason ?? null,
    upstream: outcome.upstream,
    startedAt: finished.startedAt,
    ttfbMs: outcome.ttfbMs,
    durationMs: finished.durationMs,
    missingTokenIds: tokens?.missingTokenIds ?? false,
  };
}
