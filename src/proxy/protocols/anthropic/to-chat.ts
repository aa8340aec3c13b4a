import type { ChatRequestBody } from '../../../engine-wire/chat-wire.js';
import { chatMessages, systemText } from './messages-to-chat.js';
import type { AnthropicCountTokensRequest, AnthropicMessagesRequest } from './request-schema.js';
import { chatToolFields } from './tools-to-chat.js';

/** The prompt part (system, conversation, tools) of an Anthropic request as a Chat Completions request. */
export function chatPrompt(request: AnthropicCountTokensRequest): ChatRequestBody {
  const messages = chatMessages(request.messages);
  if (request.system !== undefined) {
    const system = systemText(request.system);
    if (system.length > 0) messages.unshift({ role: 'system', content: system });
  }
  return { model: request.model, messages, ...chatToolFields(request.tools, request.tool_choice) };
}

/** A whole Messages request as the Chat Completions request the upstream serves; `metadata` and `thinking` are not forwarded. */
export function chatRequest(request: AnthropicMessagesRequest): ChatRequestBody {
  const chat = chatPrompt(request);
  chat.max_tokens = request.max_tokens;
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;
  if (request.top_k !== undefined) chat.top_k = request.top_k;
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) chat.stop = request.stop_sequences;
  if (request.stream === true) chat.stream = true;
  return chat;
}
