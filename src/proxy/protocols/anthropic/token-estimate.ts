import type { ChatRequestBody } from '../../../engine-wire/chat-wire.js';

/** Roughly four characters of English or code per token, for BPE tokenizers of current models. */
const CHARS_PER_TOKEN = 4;
/** Role markers and separators a chat template adds around each message. */
const TOKENS_PER_MESSAGE = 4;
/** The largest image Anthropic bills (about 1.15 megapixels at width·height/750); the proxy does not decode images. */
const TOKENS_PER_IMAGE = 1_600;

/**
 * An estimate of a chat prompt's length, for upstreams that cannot tokenize: the characters of
 * every text, tool call and tool definition divided by 4, plus 4 per message and 1,600 per image.
 */
export function estimatePromptTokens(chat: ChatRequestBody): number {
  let chars = 0;
  let images = 0;
  const messages = Array.isArray(chat.messages) ? (chat.messages as Record<string, unknown>[]) : [];
  for (const message of messages) {
    const content = message.content;
    if (typeof content === 'string') chars += content.length;
    if (Array.isArray(content)) {
      for (const part of content as Record<string, unknown>[]) {
        if (typeof part.text === 'string') chars += part.text.length;
        if (part.type === 'image_url') images++;
      }
    }
    if (typeof message.reasoning_content === 'string') chars += message.reasoning_content.length;
    if (Array.isArray(message.tool_calls)) chars += JSON.stringify(message.tool_calls).length;
  }
  if (Array.isArray(chat.tools)) chars += JSON.stringify(chat.tools).length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * messages.length + TOKENS_PER_IMAGE * images;
}
