import type { ServerResponse } from 'node:http';
import type { ChatBody } from '../../engine-wire/chat-wire.js';
import type { CallOutcome } from './call-outcome.js';
import type { PreparedCall } from '../protocols/types.js';
import { writeJson } from '../http/raw-reply.js';
import { SseWriter } from '../http/sse-writer.js';

/** Why the proxy ends an episode itself: the text the harness reads, the error recorded, the upstream named. */
export interface FinalMessage {
  text: string;
  error: string;
  upstream: string;
}

/**
 * Answers a policy call without asking the model: a final assistant message with no tool call, in the
 * harness's own protocol (whole or streamed), which every harness takes as the end of the episode. The
 * record carries no tokens and the error, so the call never reaches a training sample.
 */
export async function answerFinalMessage(
  call: PreparedCall,
  final: FinalMessage,
  res: ServerResponse,
  keepaliveMs: number,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  const { text, error, upstream } = final;
  const base = { id: `chatcmpl-openforge-final-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: call.model };
  if (!call.stream) {
    const body = call.translateResponse({
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    } as ChatBody);
    writeJson(res, 200, body);
    return { status: 200, response: body, error, ttfbMs: elapsedMs(), tokens: null, upstream };
  }
  const translator = call.streamTranslator();
  const writer = new SseWriter(res, keepaliveMs);
  try {
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, ...choice }], ...extra }) as ChatBody;
    await writer.write(translator.push(chunk({ delta: { role: 'assistant', content: text }, finish_reason: null })));
    await writer.write(translator.push(chunk({ delta: {}, finish_reason: 'stop' })));
    await writer.write(
      translator.push({
        ...base,
        object: 'chat.completion.chunk',
        choices: [],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      } as ChatBody),
    );
    await writer.write(translator.end());
  } finally {
    writer.end();
  }
  return { status: 200, response: translator.assembled(), error, ttfbMs: elapsedMs(), tokens: null, upstream };
}
