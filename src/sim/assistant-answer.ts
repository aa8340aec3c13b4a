import type { AssistantChatMessage, MessageContent } from './chat-request.js';
import type { PolicyAnswer } from './policies/types.js';

/**
 * The answer an assistant message in a conversation stands for: what a harness echoes back is
 * rendered as exactly the tokens that answer was generated as. Also turns recorded responses
 * into replayable answers.
 */
export function answerFromAssistantMessage(message: AssistantChatMessage): PolicyAnswer {
  const reasoning = message.reasoning_content ?? message.reasoning ?? undefined;
  return {
    content: message.content == null ? null : contentText(message.content),
    ...(reasoning ? { reasoning } : {}),
    toolCalls: (message.tool_calls ?? []).map((call) => ({ name: call.function.name, arguments: call.function.arguments })),
  };
}

/** Text of a message's content; image parts contribute nothing. */
export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
