import type { ServerResponse } from 'node:http';
import type { ChatBody, ChatUsage } from '../../engine-wire/chat-wire.js';
import type { CallOutcome } from './call-outcome.js';
import type { CapturedTokens } from '../../engine-wire/token-capture.js';
import type { ScriptedAnswer, ScriptedMessage } from '../session.js';
import { answerFinalMessage } from './final-message.js';
import type { PreparedCall } from '../protocols/types.js';
import { writeJson } from '../http/raw-reply.js';
import { SseWriter } from '../http/sse-writer.js';

/** Recorded as the call's upstream: the proxy served an answer scripted for the session (a fork's first calls, a replay's every call). */
export const SCRIPTED_UPSTREAM = 'openforge:fork';

/** Recorded as the call's upstream: a policy call past the end of a replay's script, answered by the proxy with a final message. */
export const BEYOND_SCRIPT_UPSTREAM = 'openforge:replay-beyond-recording';

/** How far each session has got through its script; counted at arrival, so concurrent calls take distinct answers. */
export class ScriptCursor {
  private readonly served = new Map<string, number>();

  /** The session's next scripted answer, or undefined once its script is used up (the upstream answers from then on). */
  take(secret: string, script: readonly ScriptedAnswer[] | undefined): ScriptedAnswer | undefined {
    if (!script) return undefined;
    const served = this.served.get(secret) ?? 0;
    this.served.set(secret, served + 1);
    return script[served];
  }

  /** How many policy calls of a scripted session have arrived so far, the scripted ones and those past the script. */
  arrived(secret: string): number {
    return this.served.get(secret) ?? 0;
  }
}

/**
 * Answers a policy call past the end of a replay's script: the recorded episode made fewer calls, so
 * there is no answer to play back. A final message ends the episode; the record names the overrun.
 */
export function answerBeyondScript(
  call: PreparedCall,
  callNumber: number,
  scriptLength: number,
  res: ServerResponse,
  keepaliveMs: number,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  return answerFinalMessage(
    call,
    {
      text: `Stopping: the recorded episode being replayed made only ${scriptLength} model call(s); there is no recorded answer for call ${callNumber}.`,
      error: `the replay made more model calls than the original: policy call ${callNumber}, while the original made ${scriptLength}; the proxy answered with a final message`,
      upstream: BEYOND_SCRIPT_UPSTREAM,
    },
    res,
    keepaliveMs,
    elapsedMs,
  );
}

/**
 * Serves a scripted answer to a policy call in the harness's own protocol, whole or streamed, as if
 * the upstream had generated it: the same translators turn it into what the harness expects.
 */
export async function answerScripted(
  call: PreparedCall,
  answer: ScriptedAnswer,
  requestBody: unknown,
  res: ServerResponse,
  keepaliveMs: number,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  const tokens = answer.tokensFor(requestBody) ?? noTokens(answer);
  const finishReason = answer.message.tool_calls?.length ? 'tool_calls' : 'stop';
  const usage: ChatUsage = {
    prompt_tokens: tokens.promptTokenIds?.length ?? 0,
    completion_tokens: tokens.completionTokenIds?.length ?? 0,
    total_tokens: (tokens.promptTokenIds?.length ?? 0) + (tokens.completionTokenIds?.length ?? 0),
  };
  const base = { id: `chatcmpl-openforge-fork-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: call.model };
  const outcome = { status: 200, error: null, tokens, upstream: SCRIPTED_UPSTREAM };
  if (!call.stream) {
    const body = call.translateResponse({
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', ...answer.message }, finish_reason: finishReason }],
      usage,
    } as ChatBody);
    const responseJson = writeJson(res, 200, body);
    return { ...outcome, response: body, responseJson, ttfbMs: elapsedMs() };
  }
  const translator = call.streamTranslator();
  const writer = new SseWriter(res, keepaliveMs);
  let ttfbMs: number | null = null;
  try {
    const chunk = (choice: Record<string, unknown>): ChatBody => ({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, finish_reason: null, ...choice }],
    });
    const chunks = deltas(answer.message).map((delta) => chunk({ delta }));
    chunks.push(chunk({ delta: {}, finish_reason: finishReason }), { ...base, object: 'chat.completion.chunk', choices: [], usage });
    for (const c of chunks) {
      const events = translator.push(c);
      if (events.length > 0) ttfbMs ??= elapsedMs();
      await writer.write(events);
    }
    await writer.write(translator.end());
  } finally {
    writer.end();
  }
  return { ...outcome, response: translator.assembled(), ttfbMs };
}

/** The message as stream deltas, in the order a model generates it: reasoning, text, then each tool call. */
function deltas(message: ScriptedMessage): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ role: 'assistant' }];
  if (message.reasoning_content) out.push({ reasoning_content: message.reasoning_content });
  if (message.content) out.push({ content: message.content });
  (message.tool_calls ?? []).forEach((call, index) => out.push({ tool_calls: [{ index, id: call.id, type: 'function', function: call.function }] }));
  return out;
}

function noTokens(answer: ScriptedAnswer): CapturedTokens {
  return {
    promptTokenIds: null,
    completionTokenIds: null,
    logprobs: null,
    finishReason: answer.message.tool_calls?.length ? 'tool_calls' : 'stop',
    missingTokenIds: true,
  };
}
