/** Records the store keeps. One file so every module agrees on them. */

import type { StreamedAnswer } from '../engine-wire/streamed-answer.js';
import type { ScriptedAnswer } from '../proxy/scripted-answers.js';

export type CallLabel = 'policy' | 'helper' | 'count_tokens';

/** Token ids: a plain array, or an Int32Array where the proxy read them straight from the upstream's bytes. */
export type TokenIds = readonly number[] | Int32Array;
export type ProtocolName = 'chat' | 'responses' | 'anthropic';

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
}

/** A rollout's session as the proxy sees it: the secret authenticates it. */
export interface ProxySession {
  rolloutId: string;
  runId: string;
  taskId: string;
  secret: string;
  /**
   * Policy calls the proxy serves for this session; past it, it answers with a final message itself
   * (max_turns for harnesses that have no limit of their own). Absent: no limit.
   */
  maxPolicyCalls?: number;
  /**
   * Answers the proxy gives the session's first policy calls itself, in order, before the upstream
   * answers the rest (a fork: the recorded answers up to call k, then the edited one). Absent: none.
   */
  script?: readonly ScriptedAnswer[];
  /**
   * The script holds every answer of the episode (a replay): a policy call past it gets a final
   * message from the proxy, recorded with an error, instead of going to the upstream.
   */
  endAfterScript?: boolean;
}

export type RolloutStatus = 'pending' | 'running' | 'finished' | 'error';
