import type { ServerResponse } from 'node:http';
import type { ChatBody } from './chat-wire.js';
import type { CallOutcome } from './call-outcome.js';
import type { PreparedCall } from './protocols/types.js';
import { writeJson } from './raw-reply.js';
import { SseWriter } from './sse-writer.js';

/** Recorded as the call's upstream: nothing was asked of the model. */
export const TURN_LIMIT_UPSTREAM = 'openforge:max_turns';

/**
 * Policy calls served per session, for sessions with a turn limit the proxy enforces (harnesses with no
 * limit of their own, e.g. OpenClaw and Codex). Counted at arrival, so concurrent calls cannot overshoot.
 */
export class TurnBudget {
  private readonly used = new Map<string, number>();

  /** Counts one policy call of the session; true when its limit was already used up. */
  spend(secret: string, limit: number): boolean {
    const used = this.used.get(secret) ?? 0;
    if (used >= limit) return true;
    this.used.set(secret, used + 1);
    return false;
  }
}

/**
 * Answers a policy call past the session's turn limit without asking the model: a final assistant
 * message with no tool call, in the harness's own protocol (whole or streamed), which every harness
 * takes as the end of the episode. The record carries no tokens and an error naming the limit, so the
 * call never reaches a training sample.
 */
export async function answerTurnLimit(call: PreparedCall, limit: number, res: ServerResponse, keepaliveMs: number, elapsedMs: () => number): Promise<CallOutcome> {
  const text = `Stopping: this episode has used its limit of ${limit} model turns (max_turns).`;
  const error = `max_turns (${limit}) reached: the proxy answered with a final message instead of asking the model`;
  const base = { id: `chatcmpl-openforge-max-turns-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: call.model };
  if (!call.stream) {
    const body = call.translateResponse({
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    } as ChatBody);
    writeJson(res, 200, body);
    return { status: 200, response: body, error, ttfbMs: elapsedMs(), tokens: null, upstream: TURN_LIMIT_UPSTREAM };
  }
  const translator = call.streamTranslator();
  const writer = new SseWriter(res, keepaliveMs);
  try {
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, ...choice }], ...extra }) as ChatBody;
    await writer.write(translator.push(chunk({ delta: { role: 'assistant', content: text }, finish_reason: null })));
    await writer.write(translator.push(chunk({ delta: {}, finish_reason: 'stop' })));
    await writer.write(translator.push({ ...base, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } } as ChatBody));
    await writer.write(translator.end());
  } finally {
    writer.end();
  }
  return { status: 200, response: translator.assembled(), error, ttfbMs: elapsedMs(), tokens: null, upstream: TURN_LIMIT_UPSTREAM };
}
