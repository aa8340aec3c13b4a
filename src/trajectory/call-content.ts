import { protocolRecords } from '../proxy/protocols/registry.js';
import type { AnswerView } from '../proxy/protocols/types.js';
import type { ProtocolName, RecordedCall } from '../records/call.js';
import { answerMessages, commonPrefix, messageKey, requestMessages } from './conversation.js';
import { isRecord } from '../util/is-record.js';

/** What the model answered in one call, read by its protocol: its text and its tool calls. */
export function answerOf(response: unknown, protocol: ProtocolName): AnswerView {
  return protocolRecords(protocol).answerView(response);
}

/**
 * Images a list of messages shows, as URLs an <img> can load (inline images as data URLs), also those
 * inside a message's nested content (tool results). GUI environments send their screenshots this way.
 */
export function imagesIn(messages: readonly unknown[], protocol: ProtocolName): string[] {
  const records = protocolRecords(protocol);
  const found: string[] = [];
  const visit = (part: unknown): void => {
    if (Array.isArray(part)) return part.forEach(visit);
    if (!isRecord(part)) return;
    const url = records.imageUrl(part);
    if (url !== undefined) found.push(url);
    else if (Array.isArray(part.content)) visit(part.content);
  };
  // a Responses function_call_output carries its items (an MCP tool's screenshot) in `output`
  for (const m of messages) if (isRecord(m)) visit(Array.isArray(m.content) ? m.content : m.output);
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
