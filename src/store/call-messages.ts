/** What crosses between a store and its call-writing thread (`call-writer-thread.ts`). */
import type { RecordedCall } from './types.js';

/**
 * A recorded call as it is posted: its fields by value, the request as bytes when the proxy has them
 * (moved, not copied: decoding them to text is the thread's work). A RecordedCall may be a class
 * whose texts are getters, which a structured clone would drop, so the fields are named here.
 */
export interface PostedCall extends Omit<RecordedCall, 'request' | 'requestJson' | 'requestBytes' | 'response' | 'responseJson'> {
  id: number;
  requestBytes: Uint8Array | undefined;
  /** The request's text or, without one, the body itself, when there are no bytes. */
  requestJson: string | undefined;
  request: unknown;
  responseJson: string | undefined;
  response: unknown;
}

export interface CallWriterInit {
  file: string;
}

export type ToCallWriter = { kind: 'calls'; calls: PostedCall[] } | { kind: 'close' };

/** One answer per `calls` message, once each of its rows is stored or has failed. */
export interface FromCallWriter {
  written: number[];
  failed: { id: number; message: string; code: string | undefined }[];
}

/** The call as posted, and the buffers to move with it. */
export function postedCall(id: number, c: RecordedCall, transfer: ArrayBuffer[]): PostedCall {
  let requestBytes: Uint8Array | undefined;
  if (c.requestBytes) {
    // a copy of its own to move (a Buffer's `slice` is a view: moving its backing store would detach
    // whatever else shares it, Node's pool of small buffers among them)
    requestBytes = new Uint8Array(c.requestBytes);
    transfer.push(requestBytes.buffer as ArrayBuffer);
  }
  return {
    id,
    rolloutId: c.rolloutId,
    seq: c.seq,
    label: c.label,
    protocol: c.protocol,
    model: c.model,
    stream: c.stream,
    requestBytes,
    requestJson: requestBytes ? undefined : c.requestJson,
    request: requestBytes || c.requestJson !== undefined ? undefined : c.request,
    responseJson: c.responseJson,
    response: c.responseJson === undefined ? c.response : undefined,
    status: c.status,
    error: c.error,
    promptTokenIds: c.promptTokenIds,
    completionTokenIds: c.completionTokenIds,
    logprobs: c.logprobs,
    finishReason: c.finishReason,
    upstream: c.upstream,
    startedAt: c.startedAt,
    ttfbMs: c.ttfbMs,
    durationMs: c.durationMs,
    missingTokenIds: c.missingTokenIds,
  };
}

/** The call back as a RecordedCall, on the writing thread. */
export function receivedCall(posted: PostedCall): RecordedCall {
  const { id: _id, requestBytes, ...call } = posted;
  // Buffer's decoder, not TextDecoder: it makes a one-byte string of ASCII text, which SQLite's binding and the
  // request-delta cache copy faster than the two-byte strings TextDecoder returns
  const requestJson = requestBytes ? Buffer.from(requestBytes.buffer, requestBytes.byteOffset, requestBytes.byteLength).toString('utf8') : posted.requestJson;
  return { ...call, requestJson };
}
