import type { ProtocolName, ProxySession, RecordedCall, TokenIds } from '../store/types.js';
import type { CallOutcome } from './call-outcome.js';
import type { PreparedCall } from './protocols/types.js';

/** What the record keeps of a validated request besides its body. */
export type CallFacts = Pick<PreparedCall, 'model' | 'stream' | 'label'>;

export interface FinishedCall {
  session: ProxySession;
  seq: number;
  protocol: ProtocolName;
  /** Undefined when the harness's request did not validate. */
  call: CallFacts | undefined;
  /** The body exactly as the harness sent it: its JSON bytes, or the parsed body when there are none. */
  request: Buffer | unknown;
  outcome: CallOutcome;
  startedAt: number;
  durationMs: number;
}

/** The store's record of one call. Built from bodies and outcomes only, so no header (and no key) can reach it. */
export function recordedCall(finished: FinishedCall): RecordedCall {
  const { session, call, outcome } = finished;
  const tokens = outcome.tokens;
  const requestBytes = Buffer.isBuffer(finished.request) ? finished.request : undefined;
  const record = new ProxiedCall(requestBytes, requestBytes === undefined ? finished.request : undefined);
  const invalid = call === undefined ? record.request : undefined;
  const body = typeof invalid === 'object' && invalid !== null ? (invalid as Record<string, unknown>) : {};
  record.rolloutId = session.rolloutId;
  record.seq = finished.seq;
  record.label = call?.label ?? 'policy';
  record.protocol = finished.protocol;
  record.model = call?.model ?? (typeof body.model === 'string' ? body.model : '');
  record.stream = call?.stream ?? body.stream === true;
  record.response = outcome.response;
  record.responseJson = outcome.responseJson;
  record.status = outcome.status;
  record.error = outcome.error;
  record.promptTokenIds = tokens?.promptTokenIds ?? null;
  record.completionTokenIds = tokens?.completionTokenIds ?? null;
  record.logprobs = tokens?.logprobs ?? null;
  record.finishReason = tokens?.finishReason ?? null;
  record.upstream = outcome.upstream;
  record.startedAt = finished.startedAt;
  record.ttfbMs = outcome.ttfbMs;
  record.durationMs = finished.durationMs;
  record.missingTokenIds = tokens?.missingTokenIds ?? false;
  return record;
}

/**
 * A record whose `request` is parsed from `requestJson`, and `requestJson` decoded from the bytes,
 * only when a reader asks (the store keeps the text; a call-writing thread takes the bytes): parsing
 * it again would cost a large request milliseconds. A class, so the getter is on the
 * prototype: an object literal with a getter of its own outlived its call (V8 kept it, and all it
 * points to, until a full GC), which doubled what the young-generation GC promoted.
 */
class ProxiedCall implements RecordedCall {
  rolloutId = '';
  seq = 0;
  label: RecordedCall['label'] = 'policy';
  protocol: ProtocolName = 'chat';
  model = '';
  stream = false;
  response: unknown = null;
  responseJson: string | undefined = undefined;
  status = 0;
  error: string | null = null;
  promptTokenIds: TokenIds | null = null;
  completionTokenIds: number[] | null = null;
  logprobs: number[] | null = null;
  finishReason: string | null = null;
  upstream = '';
  startedAt = 0;
  ttfbMs: number | null = null;
  durationMs = 0;
  missingTokenIds = false;

  private requestText: string | undefined = undefined;

  constructor(
    readonly requestBytes: Buffer | undefined,
    private parsedRequest: unknown,
  ) {}

  get requestJson(): string | undefined {
    if (this.requestText === undefined && this.requestBytes !== undefined) this.requestText = this.requestBytes.toString('utf8');
    return this.requestText;
  }

  get request(): unknown {
    if (this.parsedRequest === undefined && this.requestJson !== undefined) this.parsedRequest = JSON.parse(this.requestJson);
    return this.parsedRequest;
  }
}
