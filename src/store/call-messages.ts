/** What crosses between a store and its call-writing thread (`call-writer-thread.ts`). */
import { answerTokens } from '../engine-wire/answer-tokens.js';
import { readStreamedAnswer } from '../engine-wire/streamed-answer.js';
import { type StreamedAnswer } from '../records/call.js';
import type { CapturedTokens } from '../engine-wire/token-capture.js';
import type { RecordedCall } from '../records/call.js';

/**
 * A recorded call as it is posted: its fields by value, the request as bytes when the proxy has them
 * (moved, not copied: decoding them to text is the thread's work). A RecordedCall may be a class
 * whose texts are getters, which a structured clone would drop, so the fields are named here.
 */
export interface PostedCall extends Omit<
  RecordedCall,
  'request' | 'requestJson' | 'requestBytes' | 'response' | 'responseJson' | 'responseBytes' | 'answerBytes' | 'streamedAnswer'
> {
  id: number;
  requestBytes: Uint8Array | undefined;
  /** The request's text or, without one, the body itself, when there are no bytes. */
  requestJson: string | undefined;
  request: unknown;
  responseBytes: Uint8Array | undefined;
  responseJson: string | undefined;
  response: unknown;
  /** When set, the token fields are read from it here (they are posted empty). */
  answerBytes: Uint8Array | undefined;
  /** When set, the token fields and the response are read from it here (they are posted empty). */
  streamedAnswer: StreamedAnswer | undefined;
}

export interface CallWriterInit {
  file: string;
}

export type ToCallWriter = { kind: 'calls'; calls: PostedCall[] } | { kind: 'close' };

/** One answer per `calls` message, once each of its rows is stored or has failed. */
export interface FromCallWriter {
  written: number[];
  failed: { id: number; message: string; code: string | undefined }[];
  /** Policy calls stored flagged as without token ids since the previous answer. */
  withoutTokenIds: number;
}

/** The call as posted, and the buffers to move with it. */
export function postedCall(id: number, c: RecordedCall, transfer: ArrayBuffer[]): PostedCall {
  const requestBytes = movedCopy(c.requestBytes, transfer);
  const responseBytes = movedCopy(c.responseBytes, transfer);
  // read before the token fields: reading those first would read the tokens from it on this thread
  const answerBytes = handedOver(c.answerBytes, transfer);
  const stream = c.streamedAnswer;
  const streamedAnswer = stream && { ...stream, bytes: handedOver(stream.bytes, transfer) as Uint8Array };
  const unread = answerBytes !== undefined || streamedAnswer !== undefined;
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
    responseBytes,
    responseJson: responseBytes || streamedAnswer ? undefined : c.responseJson,
    response: responseBytes || streamedAnswer || c.responseJson !== undefined ? undefined : c.response,
    answerBytes,
    streamedAnswer,
    status: c.status,
    // the token fields' getters would read the answer here; a stream's own error comes with it
    error: streamedAnswer ? streamedAnswer.relayError : unread ? null : c.error,
    promptTokenIds: unread ? null : c.promptTokenIds,
    completionTokenIds: unread ? null : c.completionTokenIds,
    logprobs: unread ? null : c.logprobs,
    finishReason: unread ? null : c.finishReason,
    upstream: c.upstream,
    startedAt: c.startedAt,
    ttfbMs: c.ttfbMs,
    durationMs: c.durationMs,
    missingTokenIds: unread ? false : c.missingTokenIds,
    tokenMode: c.tokenMode,
    family: c.family,
    weightVersion: c.weightVersion,
  };
}

/**
 * A copy of its own to move: the request's and the response's bytes may still be in use here (a
 * Buffer's `slice` is a view, and moving its backing store would detach whatever else shares it,
 * Node's pool of small buffers among them; a socket may still be writing from them).
 */
function movedCopy(bytes: Uint8Array | undefined, transfer: ArrayBuffer[]): Uint8Array | undefined {
  if (bytes === undefined) return undefined;
  const copy = new Uint8Array(bytes);
  transfer.push(copy.buffer as ArrayBuffer);
  return copy;
}

/**
 * The upstream's answer, which the record hands over (`RecordedCall.answerBytes`): moved as it is
 * when its ArrayBuffer holds it alone, else copied. An ArrayBuffer that dies on the serving thread
 * counts against its heap's limits until a full GC finds it: the bench's 18 KB answers, left there
 * for the GC, brought a mark-compact every second (13 in a run); moved, they leave at once (1).
 */
function handedOver(bytes: Uint8Array | undefined, transfer: ArrayBuffer[]): Uint8Array | undefined {
  if (bytes === undefined) return undefined;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  if (!whole) return movedCopy(bytes, transfer);
  transfer.push(bytes.buffer);
  return bytes;
}

/** The call back as a RecordedCall, on the writing thread: texts decoded, and the tokens read from the answer when they came unread. */
export function receivedCall(posted: PostedCall): RecordedCall {
  const { id: _id, requestBytes, responseBytes, answerBytes, streamedAnswer, ...call } = posted;
  const requestJson = requestBytes ? text(requestBytes) : posted.requestJson;
  const responseJson = responseBytes ? text(responseBytes) : posted.responseJson;
  const received: RecordedCall = { ...call, requestJson, responseJson };
  if (answerBytes) {
    const tokens = answerTokens(Buffer.from(answerBytes.buffer, answerBytes.byteOffset, answerBytes.byteLength));
    withTokens(received, tokens, 'problem' in tokens ? tokens.problem : null);
  }
  if (streamedAnswer) {
    const read = readStreamedAnswer(streamedAnswer);
    withTokens(received, read.tokens, read.problem);
    received.response = read.response;
    received.responseJson = JSON.stringify(read.response);
  }
  return received;
}

function withTokens(received: RecordedCall, tokens: CapturedTokens, problem: string | null): void {
  received.promptTokenIds = tokens.promptTokenIds;
  received.completionTokenIds = tokens.completionTokenIds;
  received.logprobs = tokens.logprobs;
  received.finishReason = tokens.finishReason;
  received.missingTokenIds = tokens.missingTokenIds;
  if (problem !== null) received.error ??= problem;
}

/**
 * Buffer's decoder, not TextDecoder: it makes a one-byte string of ASCII text, which SQLite's binding
 * and the request-delta cache copy faster than the two-byte strings TextDecoder returns.
 */
function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
