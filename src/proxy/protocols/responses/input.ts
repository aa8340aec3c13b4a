import { z } from 'zod';
import { assistantText, chatContent } from './content.js';
import { ChatHistory, type ChatMessage } from './history.js';
import { chatFunctionName, customToolArguments } from './tool-names.js';
import { invalidResponsesRequest, parseField } from './validation.js';

const content = z.union([z.string(), z.array(z.unknown())], { error: 'expected a string or a list of content parts' });

const messageItem = z.looseObject({
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content,
});
const functionCallItem = z.looseObject({
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  namespace: z.string().nullish(),
});
const customToolCallItem = z.looseObject({ call_id: z.string().min(1), name: z.string().min(1), input: z.string() });
const localShellCallItem = z.looseObject({ call_id: z.string().nullish(), id: z.string().nullish(), action: z.looseObject({}) });
const toolOutputItem = z.looseObject({ call_id: z.string().min(1), output: content });
const reasoningItem = z.looseObject({
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
});

/**
 * Item types that carry nothing a local model could use: results of OpenAI-hosted tools (which
 * this proxy never produces) and Codex's own bookkeeping.
 */
const IGNORED_ITEM_TYPES = new Set(['web_search_call', 'image_generation_call', 'ghost_snapshot']);

const SUPPORTED_ITEM_TYPES = 'message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, local_shell_call, reasoning';

/** `instructions` and `input` as Chat messages. */
export function chatMessages(request: { instructions?: string | null; input?: string | readonly unknown[] | null }): ChatMessage[] {
  const history = new ChatHistory();
  if (request.instructions) history.say('system', request.instructions);
  const input = request.input ?? [];
  if (typeof input === 'string') history.say('user', input);
  else input.forEach((item, i) => addItem(history, item, `input[${i}]`));
  if (history.messages.length === 0) throw invalidResponsesRequest('input', 'the request has no instructions and no input');
  return history.messages;
}

function addItem(history: ChatHistory, item: unknown, field: string): void {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalidResponsesRequest(field, 'expected an item object');
  const { type, role } = item as { type?: unknown; role?: unknown };
  // the easy form of a message has a role and no type
  const kind = type === undefined && role !== undefined ? 'message' : type;
  switch (kind) {
    case 'message': {
      const message = parseField(messageItem, item, field);
      if (message.role === 'assistant') history.assistantText(assistantText(message.content, `${field}.content`));
      else history.say(message.role === 'user' ? 'user' : 'system', chatContent(message.content, `${field}.content`));
      return;
    }
    case 'function_call': {
      const call = parseField(functionCallItem, item, field);
      history.toolCall(toolCall(call.call_id, chatFunctionName(call.name, call.namespace), call.arguments));
      return;
    }
    case 'custom_tool_call': {
      const call = parseField(customToolCallItem, item, field);
      history.toolCall(toolCall(call.call_id, call.name, customToolArguments(call.input)));
      return;
    }
    case 'local_shell_call': {
      // a call of OpenAI's built-in shell tool; kept so that the function_call_output answering it has its call
      const call = parseField(localShellCallItem, item, field);
      const callId = call.call_id ?? call.id;
      if (!callId) throw invalidResponsesRequest(`${field}.call_id`, 'a local_shell_call needs a call_id');
      history.toolCall(toolCall(callId, 'local_shell', JSON.stringify(call.action)));
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const result = parseField(toolOutputItem, item, field);
      history.toolResult(result.call_id, chatContent(result.output, `${field}.output`));
      return;
    }
    case 'reasoning': {
      // only the reasoning text the model generated; summaries and encrypted_content are not model tokens
      const text = (parseField(reasoningItem, item, field).content ?? []).map((part) => part.text).join('');
      if (text) history.think(text);
      return;
    }
    default:
      if (typeof kind === 'string' && IGNORED_ITEM_TYPES.has(kind)) return;
      throw invalidResponsesRequest(`${field}.type`, `unsupported input item type ${JSON.stringify(kind ?? null)} (supported: ${SUPPORTED_ITEM_TYPES})`);
  }
}

function toolCall(id: string, name: string, args: string) {
  return { id, type: 'function' as const, function: { name, arguments: args } };
}
