import type { CapturedTokens } from '../engine-wire/token-capture.js';

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

/** A Chat assistant message, the form every protocol's translator starts from. */
export interface ScriptedMessage {
  content: string | null;
  reasoning_content?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

/**
 * An answer the proxy gives a session's next policy call itself instead of asking the upstream
 * (a fork replays the recorded answers up to call k, then gives call k the edited one).
 */
export interface ScriptedAnswer {
  message: ScriptedMessage;
  /**
   * The token ids the answer may be recorded with, given the request the harness sent: real ids
   * (the ones the upstream produced for this very prompt) or null. Null records the call with no
   * ids, so it never becomes model tokens of a training sample.
   */
  tokensFor(requestBody: unknown): CapturedTokens | null;
}
