import type { CapturedTokens } from '../engine-wire/token-capture.js';
import { BEYOND_SCRIPT_UPSTREAM } from '../proxy/calls/scripted-answers.js';
import { type ScriptedAnswer } from '../proxy/session.js';
import { TURN_LIMIT_UPSTREAM } from '../proxy/calls/turn-limit.js';
import type { RecordedCall } from '../records/call.js';
import { messageKey, requestMessages } from '../trajectory/conversation.js';
import { recordedAnswer } from './fork-answer.js';

/**
 * The policy calls of a recorded episode that a model (or an earlier script) answered, in order: the
 * answers a replay or a fork plays back. Left out: failed calls (the harness retried them) and the
 * final messages the proxy made up itself (max_turns, a replay's overrun), which it makes up again.
 */
export function answeredPolicyCalls(calls: readonly RecordedCall[]): RecordedCall[] {
  return calls.filter((c) => c.label === 'policy' && c.status === 200 && c.upstream !== TURN_LIMIT_UPSTREAM && c.upstream !== BEYOND_SCRIPT_UPSTREAM);
}

/**
 * The recorded answers as a script the proxy serves, in any protocol. Each keeps its recorded token
 * ids when `sameTokenizer` (the same model answers) and the new request is the conversation the call
 * was recorded with; otherwise it is served without ids.
 */
export function recordedScript(calls: readonly RecordedCall[], sameTokenizer: boolean): ScriptedAnswer[] {
  return calls.map((call) => ({
    message: recordedAnswer(call),
    tokensFor: (requestBody) => (sameTokenizer ? recordedTokens(call, requestBody) : null),
  }));
}

/**
 * The recorded call's token ids, when the new request is the conversation the call was recorded
 * with (same messages and tools, whatever ids the harness minted): then they are this call's ids too.
 */
function recordedTokens(call: RecordedCall, requestBody: unknown): CapturedTokens | null {
  if (call.missingTokenIds || !call.promptTokenIds || !call.completionTokenIds) return null;
  if (promptKey(call.request, call.protocol) !== promptKey(requestBody, call.protocol)) return null;
  return {
    promptTokenIds: call.promptTokenIds,
    completionTokenIds: call.completionTokenIds,
    logprobs: call.logprobs,
    finishReason: call.finishReason,
    missingTokenIds: false,
  };
}

function promptKey(request: unknown, protocol: RecordedCall['protocol']): string {
  const tools = (request as { tools?: unknown } | null)?.tools ?? null;
  return messageKey({ messages: requestMessages(request, protocol), tools });
}
