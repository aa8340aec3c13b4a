import { UserError } from '../../../util/errors.js';
import { isRecord } from '../../../util/is-record.js';
import { newCallId, translatedAnswer } from '../answer-errors.js';
import { CHAT_ANSWER_SHAPE } from '../chat/records.js';
import { contentText, usageCount } from '../content-text.js';
import type { AnswerView, ChatLikeMessage, ProtocolRecords } from '../types.js';
import { chatMessages } from './input.js';
import { chatFunctionName } from './tool-names.js';

/** Item types a Responses answer is made of (the rest are inputs: tool outputs, user messages). */
const ANSWER_ITEMS = new Set(['message', 'function_call', 'custom_tool_call', 'reasoning']);

/** Input items that carry a tool's result back to the model. */
const OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output']);

/** Members the fork editor leaves out of an answer's items: ids and states the proxy makes anew. */
const NOT_EDITED = new Set(['id', 'status', 'signature', 'annotations', 'logprobs', 'encrypted_content']);

function output(response: unknown): unknown[] | undefined {
  return isRecord(response) && Array.isArray(response.output) ? response.output : undefined;
}

function bare(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const out = Object.fromEntries(Object.entries(item).filter(([key]) => !NOT_EDITED.has(key)));
  if (Array.isArray(out.content)) out.content = out.content.map(bare);
  return out;
}

/** How recorded Responses calls read: `instructions` + `input` in, `output` items out. */
export const responsesRecords: ProtocolRecords = {
  requestMessages(request) {
    if (!isRecord(request)) return [];
    const input = request.input;
    const items = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
    return typeof request.instructions === 'string' ? [{ role: 'system', content: request.instructions }, ...items] : items;
  },

  answerMessages: (response) => output(response) ?? [],

  answerView(response) {
    const out: AnswerView = { text: '', toolCalls: [] };
    for (const item of output(response) ?? []) {
      if (!isRecord(item)) continue;
      const id = typeof item.call_id === 'string' ? item.call_id : '';
      if (item.type === 'function_call') out.toolCalls.push({ id, name: String(item.name ?? ''), arguments: String(item.arguments ?? '') });
      // freeform tools (Codex's apply_patch): the raw input is the arguments
      if (item.type === 'custom_tool_call') out.toolCalls.push({ id, name: String(item.name ?? ''), arguments: String(item.input ?? '') });
      if (item.type === 'message' && Array.isArray(item.content)) {
        for (const part of item.content) if (isRecord(part) && typeof part.text === 'string') out.text += part.text;
      }
    }
    return out;
  },

  toolResults: (request) =>
    (isRecord(request) && Array.isArray(request.input) ? request.input : [])
      .filter(isRecord)
      .flatMap((item) =>
        typeof item.type === 'string' && OUTPUT_ITEMS.has(item.type)
          ? [{ callId: typeof item.call_id === 'string' ? item.call_id : '', output: contentText(item.output) }]
          : [],
      ),

  // what the model can call: functions (a namespace's as <namespace>__<name>) and freeform tools; hosted tools are not passed on
  toolNames(request) {
    const tools = isRecord(request) && Array.isArray(request.tools) ? request.tools.filter(isRecord) : [];
    return tools.flatMap((t) => {
      if ((t.type === 'function' || t.type === 'custom') && typeof t.name === 'string') return [t.name];
      if (t.type === 'namespace' && typeof t.name === 'string' && Array.isArray(t.tools)) {
        const namespace = t.name;
        return t.tools.flatMap((inner) => (isRecord(inner) && typeof inner.name === 'string' ? [chatFunctionName(inner.name, namespace)] : []));
      }
      return [];
    });
  },

  usage(response) {
    const usage = isRecord(response) && isRecord(response.usage) ? response.usage : undefined;
    const prompt = usage && usageCount(usage, 'input_tokens');
    const completion = usage && usageCount(usage, 'output_tokens');
    return prompt === undefined || completion === undefined ? undefined : { prompt, completion };
  },

  messageList: (request) => (isRecord(request) && Array.isArray(request.input) ? request.input : undefined),

  imageUrl(part) {
    if (!isRecord(part) || part.type !== 'input_image') return undefined;
    if (typeof part.image_url === 'string') return part.image_url;
    return typeof part.file_id === 'string' ? `file:${part.file_id}` : undefined;
  },

  editableAnswer: (response) => (output(response) ?? []).map(bare),

  recordedAnswer: output,

  answerAsChat(raw, what, hint) {
    const items = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.output) ? raw.output : undefined;
    if (!items) return undefined;
    const filled = items.map((item: unknown, i: number) => {
      if (!isRecord(item)) throw new UserError(`${what}: output[${i}] is not an item object`, hint);
      const { type, role } = item;
      const kind = type === undefined && role !== undefined ? 'message' : type;
      if (typeof kind !== 'string' || !ANSWER_ITEMS.has(kind)) {
        throw new UserError(
          `${what}: output[${i}].type ${JSON.stringify(kind ?? null)} is not part of an answer (answer items: ${[...ANSWER_ITEMS].join(', ')})`,
          hint,
        );
      }
      if (kind === 'message' && role !== undefined && role !== 'assistant')
        throw new UserError(`${what}: output[${i}] is a ${String(role)} message; an answer's messages have role "assistant"`, hint);
      if ((kind === 'function_call' || kind === 'custom_tool_call') && item.call_id === undefined) return { ...item, call_id: newCallId('call') };
      return { ...item, ...(kind === 'message' ? { role: 'assistant' } : {}) };
    });
    if (filled.length === 0) throw new UserError(`${what} is an empty list of output items`, hint);
    return translatedAnswer(
      () => chatMessages({ input: filled }),
      what,
      hint,
      (m) => m.replace(/^invalid responses request: /, '').replace(/\binput\[/g, 'output['),
    ) as ChatLikeMessage[];
  },

  answerShape: `a list of Responses output items such as [{"type": "function_call", "name": "exec_command", "arguments": "{\\"cmd\\": \\"ls\\"}"}] (or {"output": [...]}), or ${CHAT_ANSWER_SHAPE}`,
};
