/**
 * The records every layer agrees on: what one model call through the recording proxy was, at token level.
 * This module imports nothing, so anything may import it.
 */

export type CallLabel = 'policy' | 'helper' | 'count_tokens';

/** Token ids: a plain array, or an Int32Array where the proxy read them straight from the upstream's bytes. */
export type TokenIds = readonly number[] | Int32Array;
/** A registered protocol's name (built in: chat, responses, anthropic). */
export type ProtocolName = string;

/** One model call that went through the recording proxy. */
export interface RecordedCall {
  rolloutId: string;
  /**
   * The task the call was served for, when one was named (its session's, or the one its client named
   * in `x-openforge-task`). Not stored with the call: a standalone proxy puts it on the rollout's row.
   */
  taskId?: string;
  /** Per-rollout sequence number, 1, 2, 3 … in arrival order. */
  seq: number;
  label: CallLabel;
  protocol: ProtocolName;
  /** Model name the harness asked for. */
  model: string;
  stream: boolean;
  /** The request body as the harness sent it (never headers, so no API keys). */
  request: unknown;
  /** `request` as JSON text, when the proxy has the harness's own bytes: stored as is instead of re-serialised. */
  requestJson?: string;
  /** The UTF-8 bytes of `requestJson`, when the proxy has them: what crosses to the call-writing thread. */
  requestBytes?: Uint8Array;
  /** What the harness received: the JSON body, or for streams the assembled final message. Null on failure. */
  response: unknown;
  /** `response` as the JSON text the harness was sent, when there was one: stored as is. */
  responseJson?: string;
  /** The UTF-8 bytes of `responseJson`, when the proxy has them: what crosses to the call-writing thread. */
  responseBytes?: Uint8Array;
  /**
   * The upstream's whole `chat.completion`, when the token fields below are still to be read from it:
   * the call-writing thread reads them there (`answerTokens`), so the serving thread never parses the
   * answer. Only on a call that succeeded (`error` null until an answer that is not JSON sets it).
   * The fields read the same either way (on this thread they are read on first use). Handed over
   * with the record: a store that writes on a thread moves it there, and when it fills an ArrayBuffer
   * of its own, that buffer is detached here (nothing may read it after `recordCall`).
   */
  answerBytes?: Uint8Array;
  /**
   * A Chat Completions stream as the upstream sent it, when the token fields and the response are
   * still to be read from it (`readStreamedAnswer`): the call-writing thread reads them there, as it
   * does `answerBytes`, and the fields read the same either way. Handed over with the record likewise.
   */
  streamedAnswer?: StreamedAnswer;
  /** HTTP status returned to the harness. */
  status: number;
  error: string | null;
  promptTokenIds: TokenIds | null;
  completionTokenIds: number[] | null;
  /** One logprob per completion token. */
  logprobs: number[] | null;
  finishReason: string | null;
  /** Upstream base URL that served the call. */
  upstream: string;
  /** Epoch milliseconds. */
  startedAt: number;
  ttfbMs: number | null;
  durationMs: number;
  /** True when a policy call came back without token ids (flagged, never silently turned into an empty row). */
  missingTokenIds: boolean;
  /** How the prompt reached the engine: as a chat request it rendered, or as token ids the proxy kept (token-in). Absent: chat. */
  tokenMode?: TokenMode;
  /** The model family that rendered and parsed the call, when known (`qwen3`, or a tokenizer folder). */
  family?: string | null;
  /** The policy weight version current at the proxy when the engine answered (set by a resume after an update), when known. */
  weightVersion?: string | null;
}

export type TokenMode = 'chat' | 'token_in';

/** What the harness asked to see of an answer: the recorded response is the one it was sent. */
export interface ClientView {
  /** The harness asked for logprobs itself. */
  logprobs: boolean;
}

/** A Chat Completions stream as the upstream sent it, kept whole until a record reads it. */
export interface StreamedAnswer {
  /** The upstream's SSE body, up to where the proxy stopped reading it. */
  bytes: Uint8Array;
  /** What the harness asked to see: the recorded response is the one it was sent. */
  view: ClientView;
  /** Why the relay ended the stream early (the call's error), or null: the record's own error then comes from the reading. */
  relayError: string | null;
}
