import type { StreamedAnswer } from '../../records/call.js';
import type { UnreadableAnswer } from '../../engine-wire/answer-tokens.js';
import type { CapturedTokens } from '../../engine-wire/token-capture.js';

/** How one call ended, as far as the record needs to know. */
export interface CallOutcome {
  /** HTTP status the harness got (499 when it went away before an answer). */
  status: number;
  /** What the harness received; null when it received no answer. */
  response: unknown;
  /** `response` as the JSON text the harness was sent, when it was sent whole. */
  responseJson?: string;
  error: string | null;
  /** Milliseconds from arrival to the first byte of the answer body. */
  ttfbMs: number | null;
  /**
   * Null when the upstream never answered 2xx, or when its tokens are still in `answerBytes` or
   * `streamedAnswer`. With a `problem` when an answer could not be read whole (the record's error then).
   */
  tokens: CapturedTokens | UnreadableAnswer | null;
  /**
   * The upstream's whole answer, when the harness's answer was cut from its bytes and its tokens were
   * not read yet: the record reads them from here (the store's writing thread does, off this one).
   */
  answerBytes?: Buffer;
  /** What the harness was sent, as those bytes, when it was cut from `answerBytes` (`response` is then null). */
  responseBytes?: Buffer;
  /**
   * A Chat Completions stream relayed as cut from the upstream's text: the record reads its tokens
   * and its response from these bytes (the store's writing thread does). `tokens` and `response` are null.
   */
  streamedAnswer?: StreamedAnswer;
  /** The upstream base URL that served (or last failed) the call. */
  upstream: string;
}

/** Status recorded for a call whose client disconnected before it was answered (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;
