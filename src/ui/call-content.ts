import type { ProtocolName, RecordedCall } from '../store/types.js';
import { answerMessages, commonPrefix, isRecord, messageKey, requestMessages } from '../trajectory/conversation.js';

/** What the model answered in one call, whatever the wire protocol: its text and its tool calls. */
export interface AnswerView {
  text: string;
  toolCalls: { name: string; arguments: string }[];
}

export function answerOf(response: unknown, protocol: ProtocolName): AnswerView {
  const out: AnswerView = { text: '', toolCalls: [] };
  if (!isRecord(response)) return out;
  if (protocol === 'anthropic') {
    for (const block of Array.isArray(response.content) ? response.content : []) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') out.text += block.text;
      if (block.type === 'tool_use') out.toolCalls.push({ name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) });
    }
    return out;
  }
  if (protocol === 'responses') {
    for (const item of Array.isArray(response.output) ? response.output : []) {
      if (!isRecord(item)) continue;
      if (item.type === 'function_call') out.toolCalls.push({ name: String(item.name ?? ''), arguments: String(item.arguments ?? '') });
      // freeform tools (Codex's apply_patch): the raw input is the arguments
      if (item.type === 'custom_tool_call') out.toolCalls.push({ name: String(item.name ?? ''), arguments: String(item.input ?? '') });
      if (item.type === 'message' && Array.isArray(item.content)) {
        for (const part of item.content) if (isRecord(part) && typeof part.text === 'string') out.text += part.text;
      }
    }
    return out;
  }
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  if (!message) return out;
  out.text = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? message.content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('') : '';
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (fn) out.toolCalls.push({ name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) });
  }
  return out;
}

/**
 * Images a list of messages shows, as URLs an <img> can load: Chat `image_url` parts, Responses
 * `input_image`, Anthropic base64 / url image blocks (also inside tool results). GUI environments
 * send their screenshots this way.
 */
export function imagesIn(messages: readonly unknown[]): string[] {
  const found: string[] = [];
  const visit = (part: unknown): void => {
    if (Array.isArray(part)) return part.forEach(visit);
    if (!isRecord(part)) return;
    if (part.type === 'image_url') {
      const url = isRecord(part.image_url) ? part.image_url.url : part.image_url;
      if (typeof url === 'string') found.push(url);
    } else if (part.type === 'input_image' && typeof part.image_url === 'string') {
      found.push(part.image_url);
    } else if (part.type === 'image' && isRecord(part.source)) {
      const s = part.source;
      if (s.type === 'base64' && typeof s.data === 'string') found.push(`data:${typeof s.media_type === 'string' ? s.media_type : 'image/png'};base64,${s.data}`);
      if (s.type === 'url' && typeof s.url === 'string') found.push(s.url);
    } else if (Array.isArray(part.content)) {
      visit(part.content);
    }
  };
  for (const m of messages) if (isRecord(m)) visit(m.content);
  return found;
}

/** The request's messages after what the previous call's conversation (request + answer) already held: the observations it brings. */
export function newMessages(call: RecordedCall, previous: RecordedCall | undefined): unknown[] {
  const messages = requestMessages(call.request, call.protocol);
  if (!previous) return messages;
  const before = [...requestMessages(previous.request, previous.protocol), ...answerMessages(previous.response, previous.protocol)].map(messageKey);
  const shared = commonPrefix(before, messages.map(messageKey));
  return shared === 0 ? messages : messages.slice(shared);
}
