import type { CallLabel, ProtocolName, RecordedCall } from '../records/call.js';

/**
 * A recorded call as the trajectory builder reads it. The request (the whole conversation so far,
 * often the largest thing stored) and the response are loaded and parsed on demand: the builder
 * only needs messages where a chain breaks and for the last call of a sample.
 */
export interface TrajectoryCall {
  rolloutId: string;
  seq: number;
  label: CallLabel;
  protocol: ProtocolName;
  status: number;
  error: string | null;
  /** May be decoded on first read: with `promptDelta` the builder often never needs it. */
  readonly promptTokenIds: ArrayLike<number> | null;
  /** Set when the store keeps the prompt as a delta: it is call `baseSeq`'s prompt + completion cut at `sharedLen`, then `suffix`. */
  promptDelta?: { baseSeq: number; sharedLen: number; suffix: ArrayLike<number> };
  completionTokenIds: ArrayLike<number> | null;
  logprobs: ArrayLike<number> | null;
  finishReason: string | null;
  missingTokenIds: boolean;
  /** The policy weight version current at the proxy when the engine answered; null (or absent) when none was set. */
  weightVersion?: string | null;
  request(): Promise<unknown>;
  /** The request, or undefined when its JSON text does not contain `text`: a cheap pre-filter (it may also return the request). */
  requestIfContains(text: string): Promise<unknown>;
  response(): Promise<unknown>;
  /** The response, or undefined when its JSON text does not contain `text` (a pre-filter, like `requestIfContains`). */
  responseIfContains(text: string): Promise<unknown>;
}

/** A stored call that cannot be read: names the rollout and the call so the row can be found. */
export class CorruptCallError extends Error {
  constructor(
    readonly rolloutId: string,
    readonly seq: number,
    readonly problem: string,
  ) {
    super(`rollout ${rolloutId}, call seq ${seq}: ${problem}`);
    this.name = 'CorruptCallError';
  }
}

export function fromRecordedCall(call: RecordedCall): TrajectoryCall {
  return {
    rolloutId: call.rolloutId,
    seq: call.seq,
    label: call.label,
    protocol: call.protocol,
    status: call.status,
    error: call.error,
    promptTokenIds: call.promptTokenIds,
    completionTokenIds: call.completionTokenIds,
    logprobs: call.logprobs,
    finishReason: call.finishReason,
    missingTokenIds: call.missingTokenIds,
    weightVersion: call.weightVersion ?? null,
    request: async () => call.request,
    requestIfContains: async () => call.request,
    response: async () => call.response,
    responseIfContains: async () => call.response,
  };
}
