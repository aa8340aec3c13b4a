import { UserError } from '../../../util/errors.js';
import { isRecord } from '../../../util/is-record.js';
import { newCallId, translatedAnswer } from '../answer-errors.js';
import { CHAT_ANSWER_SHAPE } from '../chat/records.js';
import { contentText, usageCount } from '../content-text.js';
import type { AnswerView, ChatLikeMessage, ProtocolRecords } from '../types.js';
import { chatMessages } from './messages-to-chat.js';
import { parseMessagesRequest, type AnthropicMessage } from './request-schema.js';

/** Members the fork editor leaves out of an answer's blocks: ids and signatures the proxy makes anew. */
const NOT_EDITED = new Set(['id', 'status', 'signature', 'annotations', 'logprobs', 'encrypted_content']);

function content(response: unknown): unknown[] | undefined {
  return isRecord(response) && Array.isArray(response.content) ? response.content : undefined;
}

/** How recorded Anthropic Messages calls read: `system` + `messages` in, `content` blocks out. */
export const anthropicRecords: ProtocolRecords = {
  requestMessages(request) {
    if (!isRecord(request)) return [];
    const system = request.system;
    const messages = Array.isArray(request.messages) ? request.messages : [];
    return system === undefined || system === null ? messages : [{ role: 'system', content: system }, ...messages];
  },

  answerMessages(response) {
    const blocks = content(response);
    return blocks ? [{ role: 'assistant', content: blocks }] : [];
  },

  answerView(response) {
    const out: AnswerView = { text: '', toolCalls: [] };
    for (const block of content(response) ?? []) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') out.text += block.text;
      if (block.type === 'tool_use')
        out.toolCalls.push({ id: typeof block.id === 'string' ? block.id : '', name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) });
    }
    return out;
  },

  toolResults(request) {
    const messages = isRecord(request) && Array.isArray(request.messages) ? request.messages.filter(isRecord) : [];
    return messages.flatMap((m) =>
      (Array.isArray(m.content) ? m.content.filter(isRecord) : []).flatMap((block) =>
        block.type === 'tool_result'
          ? [
              {
                callId: typeof block.tool_use_id === 'string' ? block.tool_use_id : '',
                output: contentText(block.content),
                ...(typeof block.is_error === 'boolean' ? { isError: block.is_error } : {}),
              },
            ]
          : [],
      ),
    );
  },

  toolNames: (request) =>
    (isRecord(request) && Array.isArray(request.tools) ? request.tools : []).flatMap((t) => (isRecord(t) && typeof t.name === 'string' ? [t.name] : [])),

  usage(response) {
    const usage = isRecord(response) && isRecord(response.usage) ? response.usage : undefined;
    const input = usage && usageCount(usage, 'input_tokens');
    const completion = usage && usageCount(usage, 'output_tokens');
    if (!usage || input === undefined || completion === undefined) return undefined;
    // prompt caching reports the cached part of the prompt apart from input_tokens
    const cached = (usageCount(usage, 'cache_creation_input_tokens') ?? 0) + (usageCount(usage, 'cache_read_input_tokens') ?? 0);
    return { prompt: input + cached, completion };
  },

  messageList: (request) => (isRecord(request) && Array.isArray(request.messages) ? request.messages : undefined),

  imageUrl(part) {
    if (!isRecord(part) || part.type !== 'image' || !isRecord(part.source)) return undefined;
    const source = part.source;
    if (source.type === 'base64' && typeof source.data === 'string')
      return `data:${typeof source.media_type === 'string' ? source.media_type : 'image/png'};base64,${source.data}`;
    return source.type === 'url' && typeof source.url === 'string' ? source.url : undefined;
  },

  editableAnswer: (response) =>
    (content(response) ?? []).map((block) => (isRecord(block) ? Object.fromEntries(Object.entries(block).filter(([key]) => !NOT_EDITED.has(key))) : block)),

  recordedAnswer: content,

  answerAsChat(raw, what, hint) {
    const blocks = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.content) ? raw.content : undefined;
    if (!blocks) return undefined;
    if (blocks.length === 0) throw new UserError(`${what} is an empty list of content blocks`, hint);
    const filled = blocks.map((block: unknown) =>
      isRecord(block) && block.type === 'tool_use' && block.id === undefined ? { ...block, id: newCallId('toolu') } : block,
    );
    return translatedAnswer(
      () => {
        // validated as the assistant turn of a request, the shape a harness echoes it back in
        const request = parseMessagesRequest({
          model: 'fork',
          max_tokens: 1,
          messages: [
            { role: 'user', content: '.' },
            { role: 'assistant', content: filled },
          ],
        });
        return chatMessages([request.messages[1] as AnthropicMessage]);
      },
      what,
      hint,
      (m) => m.replace(/\bmessages\.[01]\.content\./g, 'content.').replace(/ in assistant messages/, ' in an answer'),
    ) as ChatLikeMessage[];
  },

  answerShape: `a list of Anthropic content blocks such as [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}] (or {"content": [...]}), or ${CHAT_ANSWER_SHAPE}`,
};
