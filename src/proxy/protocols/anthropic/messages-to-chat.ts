import { invalidAnthropicRequest } from './errors.js';
import { chatToolCallId } from './ids.js';
import type { AnthropicContentBlock, AnthropicImageBlock, AnthropicMessage, AnthropicTextBlock, AnthropicToolResultBlock } from './request-schema.js';

type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
type ChatMessage = Record<string, unknown> & { role: string };

/** Anthropic system prompt (a string or text blocks) → the text of one system message. */
export function systemText(system: string | AnthropicTextBlock[]): string {
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

/** Anthropic conversation → Chat Completions messages (a user turn with tool results becomes several). */
export function chatMessages(messages: readonly AnthropicMessage[]): ChatMessage[] {
  return messages.flatMap((message, i) => {
    if (message.role === 'assistant') return [assistantMessage(message.content, i)];
    if (message.role === 'system') return [systemMessage(message.content)];
    return userMessages(message.content, i);
  });
}

/** A system message inside `messages` keeps its place in the conversation; only its text counts. */
function systemMessage(content: AnthropicMessage['content']): ChatMessage {
  if (typeof content === 'string') return { role: 'system', content };
  return { role: 'system', content: content.map((block) => (block.type === 'text' ? block.text : '')).join('') };
}

/**
 * Thinking → `reasoning_content`, text → `content`, tool_use → `tool_calls` with the input as
 * compact JSON: the same text the upstream generated when it came from this proxy, so the
 * upstream renders the history as the tokens it sampled. Redacted thinking is opaque ciphertext
 * from Anthropic's servers; no upstream can read it, so it is left out.
 */
function assistantMessage(content: AnthropicMessage['content'], index: number): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: unknown[] = [];
  content.forEach((block, j) => {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'thinking':
        reasoning.push(block.thinking);
        break;
      case 'redacted_thinking':
        break;
      case 'tool_use':
        toolCalls.push({
          id: chatToolCallId(block.id),
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input) },
        });
        break;
      default:
        throw wrongRole(index, j, block, 'assistant');
    }
  });
  const message: ChatMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

/**
 * Tool results become `tool` messages, which must directly follow the assistant's tool calls, so
 * they come first (Anthropic requires them first in the turn anyway); the turn's text and images
 * follow as one user message. Images inside a tool result move into that user message too: a
 * chat `tool` message carries text only.
 */
function userMessages(content: AnthropicMessage['content'], index: number): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: ChatMessage[] = [];
  const toolImages: ChatPart[] = [];
  const parts: ChatPart[] = [];
  content.forEach((block, j) => {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push(imagePart(block));
        break;
      case 'tool_result': {
        const { text, images } = toolResultContent(block);
        toolMessages.push({ role: 'tool', tool_call_id: chatToolCallId(block.tool_use_id), content: text });
        toolImages.push(...images);
        break;
      }
      default:
        throw wrongRole(index, j, block, 'user');
    }
  });
  const userParts = [...toolImages, ...parts];
  if (userParts.length > 0) return [...toolMessages, { role: 'user', content: userParts }];
  return toolMessages.length > 0 ? toolMessages : [{ role: 'user', content: '' }];
}

function toolResultContent(block: AnthropicToolResultBlock): { text: string; images: ChatPart[] } {
  const content = block.content ?? '';
  const blocks = typeof content === 'string' ? [] : content;
  const text = typeof content === 'string' ? content : blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const images = blocks.flatMap((b) => (b.type === 'image' ? [imagePart(b)] : []));
  return { text: block.is_error ? `Error: ${text}` : text, images };
}

function imagePart(block: AnthropicImageBlock): ChatPart {
  const { source } = block;
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

function wrongRole(message: number, block: number, content: AnthropicContentBlock, role: 'user' | 'assistant') {
  return invalidAnthropicRequest(`messages.${message}.content.${block}.type`, `a ${content.type} block cannot appear in ${role} messages`);
}
