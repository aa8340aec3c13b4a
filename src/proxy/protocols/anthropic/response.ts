import type { ChatBody } from '../../../engine-wire/chat-wire.js';
import { anthropicMessageId, anthropicToolUseId, ThinkingSignature } from './ids.js';
import { anthropicStop } from './stop-reason.js';
import { toolInput } from './tool-input.js';
import { anthropicUsage, type AnthropicOutputBlock, type AnthropicResponseMessage } from './wire.js';

/** A whole upstream `chat.completion` (choice 0) as an Anthropic message: thinking, text, then tool_use blocks. */
export function anthropicResponse(upstream: ChatBody, requestedModel: string): AnthropicResponseMessage {
  const choice = upstream.choices?.find((c) => (c.index ?? 0) === 0);
  const message = choice?.message ?? {};
  const id = anthropicMessageId(upstream.id);
  const content: AnthropicOutputBlock[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning.length > 0) {
    content.push({ type: 'thinking', thinking: reasoning, signature: ThinkingSignature.of(reasoning) });
  }
  if (typeof message.content === 'string' && message.content.length > 0) content.push({ type: 'text', text: message.content });
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  toolCalls.forEach((call, i) => {
    content.push({
      type: 'tool_use',
      id: anthropicToolUseId(call.id, id, i),
      name: call.function?.name ?? '',
      input: toolInput(call.function?.arguments),
    });
  });
  const promptTokens = upstream.usage?.prompt_tokens ?? upstream.prompt_token_ids?.length ?? 0;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: requestedModel,
    content,
    ...anthropicStop(choice?.finish_reason, choice?.stop_reason, toolCalls.length > 0),
    usage: anthropicUsage(promptTokens, upstream.usage?.completion_tokens ?? 0),
  };
}
