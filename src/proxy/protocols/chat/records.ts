import { isRecord } from '../../../util/is-record.js';
import { contentText, usageCount } from '../content-text.js';
import type { AnswerView, ProtocolRecords } from '../types.js';

const CHAT_EXAMPLE = '{"content": "…", "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}}]}';

/** A Chat assistant message as an example, for every protocol's hint (each also takes one). */
export const CHAT_ANSWER_SHAPE = `a Chat assistant message such as ${CHAT_EXAMPLE}`;

function messages(request: unknown): unknown[] | undefined {
  return isRecord(request) && Array.isArray(request.messages) ? request.messages : undefined;
}

function assistantMessage(response: unknown): Record<string, unknown> | undefined {
  const choice = isRecord(response) && Array.isArray(response.choices) ? response.choices[0] : undefined;
  return isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
}

/** How recorded Chat Completions calls read. */
export const chatRecords: ProtocolRecords = {
  requestMessages: (request) => messages(request) ?? [],

  answerMessages(response) {
    const message = assistantMessage(response);
    return message ? [message] : [];
  },

  answerView(response) {
    const out: AnswerView = { text: '', toolCalls: [] };
    const message = assistantMessage(response);
    if (!message) return out;
    out.text = contentText(message.content);
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
      if (fn)
        out.toolCalls.push({
          id: typeof call.id === 'string' ? call.id : '',
          name: String(fn.name ?? ''),
          arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        });
    }
    return out;
  },

  toolResults: (request) =>
    (messages(request) ?? [])
      .filter(isRecord)
      .flatMap((m) => (m.role === 'tool' ? [{ callId: typeof m.tool_call_id === 'string' ? m.tool_call_id : '', output: contentText(m.content) }] : [])),

  toolNames(request) {
    const tools = isRecord(request) && Array.isArray(request.tools) ? request.tools : [];
    return tools.flatMap((t) => (isRecord(t) && isRecord(t.function) && typeof t.function.name === 'string' ? [t.function.name] : []));
  },

  usage(response) {
    const usage = isRecord(response) && isRecord(response.usage) ? response.usage : undefined;
    const prompt = usage && usageCount(usage, 'prompt_tokens');
    const completion = usage && usageCount(usage, 'completion_tokens');
    return prompt === undefined || completion === undefined ? undefined : { prompt, completion };
  },

  messageList: messages,

  imageUrl(part) {
    if (!isRecord(part) || part.type !== 'image_url') return undefined;
    const url = isRecord(part.image_url) ? part.image_url.url : part.image_url;
    return typeof url === 'string' ? url : undefined;
  },

  editableAnswer(response) {
    const message = assistantMessage(response);
    const calls = (Array.isArray(message?.tool_calls) ? message.tool_calls : []).filter(isRecord).map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return { type: 'function', function: { name: fn.name, arguments: fn.arguments } };
    });
    return { content: message?.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  },

  recordedAnswer: assistantMessage,

  // a Chat answer is read as the Chat assistant message it is
  answerAsChat: () => undefined,

  answerShape: CHAT_ANSWER_SHAPE,
};
