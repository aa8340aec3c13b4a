import { answerTokens, type UnreadableAnswer } from '../../engine-wire/answer-tokens.js';
import { readStreamedAnswer, recordedTokens } from '../../engine-wire/streamed-answer.js';
import { type StreamedAnswer } from '../../records/call.js';
import type { CapturedTokens } from '../../engine-wire/token-capture.js';
import type { ProtocolName, RecordedCall, TokenIds } from '../../records/call.js';
import type { ProxySession } from '../session.js';
import type { CallOutcome } from '../calls/call-outcome.js';
import type { PreparedCall } from '../protocols/types.js';

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
  const requestBytes = Buffer.isBuffer(finished.request) ? finished.request : undefined;
  const record = new ProxiedCall(requestBytes, requestBytes === undefined ? finished.request : undefined, outcome);
  const invalid = call === undefined ? record.request : undefined;
  const body = typeof invalid === 'object' && invalid !== null ? (invalid as Record<string, unknown>) : {};
  record.rolloutId = session.rolloutId;
  if (session.taskId !== '') record.taskId = session.taskId;
  record.seq = finished.seq;
  record.label = call?.label ?? 'policy';
  record.protocol = finished.protocol;
  record.model = call?.model ?? (typeof body.model === 'string' ? body.model : '');
  record.stream = call?.stream ?? body.stream === true;
  record.status = outcome.status;
  record.upstream = outcome.upstream;
  record.startedAt = finished.startedAt;
  record.ttfbMs = outcome.ttfbMs;
  record.durationMs = finished.durationMs;
  return record;
}

/**
 * A record whose texts and tokens are read from the bytes the proxy has only when a reader asks:
 * the request from its bytes (parsing it again would cost a large request milliseconds), and for an
 * answer cut from the upstream's bytes, the response text and the tokens (the store's writing thread
 * takes the bytes and reads them there). A class, so the getters are on the prototype: an object
 * literal with a getter of its own outlived its call (V8 kept it, and all it points to, until a full
 * GC), which doubled what the young-generation GC promoted.
 */
class ProxiedCall implements RecordedCall {
  rolloutId = '';
  taskId: string | undefined = undefined;
  seq = 0;
  label: RecordedCall['label'] = 'policy';
  protocol: ProtocolName = 'chat';
  model = '';
  stream = false;
  status = 0;
  upstream = '';
  startedAt = 0;
  ttfbMs: number | null = null;
  durationMs = 0;

  readonly responseBytes: Buffer | undefined;
  private requestText: string | undefined = undefined;
  private responseValue: unknown;
  private responseText: string | undefined;
  private readonly outcomeError: string | null;
  private tokens: CapturedTokens | UnreadableAnswer | null;
  /** The upstream's answer until its tokens are read. */
  private unreadAnswer: Buffer | undefined;
  /** The upstream's stream until its tokens and response are read. */
  private unreadStream: StreamedAnswer | undefined;

  constructor(
    readonly requestBytes: Buffer | undefined,
    private parsedRequest: unknown,
    outcome: CallOutcome,
  ) {
    this.responseValue = outcome.response;
    this.responseText = outcome.responseJson;
    this.responseBytes = outcome.responseBytes;
    this.outcomeError = outcome.error;
    this.tokens = outcome.tokens;
    this.unreadAnswer = outcome.answerBytes;
    this.unreadStream = outcome.streamedAnswer;
  }

  get requestJson(): string | undefined {
    if (this.requestText === undefined && this.requestBytes !== undefined) this.requestText = this.requestBytes.toString('utf8');
    return this.requestText;
  }

  get request(): unknown {
    if (this.parsedRequest === undefined && this.requestJson !== undefined) this.parsedRequest = JSON.parse(this.requestJson);
    return this.parsedRequest;
  }

  get responseJson(): string | undefined {
    if (this.responseText === undefined && this.responseBytes !== undefined) this.responseText = this.responseBytes.toString('utf8');
    return this.responseText;
  }

  get response(): unknown {
    this.readStream();
    if (this.responseValue === null && this.responseBytes !== undefined) this.responseValue = JSON.parse(this.responseJson as string);
    return this.responseValue;
  }

  /** Undefined once the tokens have been read from it (then the fields hold them). */
  get answerBytes(): Buffer | undefined {
    return this.unreadAnswer;
  }

  /** Undefined once the tokens and the response have been read from it (then the fields hold them). */
  get streamedAnswer(): StreamedAnswer | undefined {
    return this.unreadStream;
  }

  private captured(): CapturedTokens | UnreadableAnswer | null {
    if (this.unreadAnswer !== undefined) {
      this.tokens = answerTokens(this.unreadAnswer);
      this.unreadAnswer = undefined;
    }
    this.readStream();
    return this.tokens;
  }

  private readStream(): void {
    if (this.unreadStream === undefined) return;
    const read = readStreamedAnswer(this.unreadStream);
    this.unreadStream = undefined;
    this.tokens = recordedTokens(read);
    this.responseValue = read.response;
  }

  get error(): string | null {
    if (this.outcomeError !== null) return this.outcomeError;
    const tokens = this.captured();
    return tokens && 'problem' in tokens ? tokens.problem : null;
  }

  get promptTokenIds(): TokenIds | null {
    return this.captured()?.promptTokenIds ?? null;
  }

  get completionTokenIds(): number[] | null {
    return this.captured()?.completionTokenIds ?? null;
  }

  get logprobs(): number[] | null {
    return this.captured()?.logprobs ?? null;
  }

  get finishReason(): string | null {
    return this.captured()?.finishReason ?? null;
  }

  get missingTokenIds(): boolean {
    return this.captured()?.missingTokenIds ?? false;
  }
}
