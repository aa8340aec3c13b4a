import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ProxyHttpError } from '../proxy/http-error.js';
import { chatMessages as anthropicChatMessages } from '../proxy/protocols/anthropic-messages-to-chat.js';
import { parseMessagesRequest, type AnthropicMessage } from '../proxy/protocols/anthropic-request-schema.js';
import { PROTOCOLS } from '../proxy/protocols/registry.js';
import { chatMessages as responsesChatMessages } from '../proxy/protocols/responses-input.js';
import type { ScriptedMessage } from '../proxy/scripted-answers.js';
import type { ProtocolName } from '../store/types.js';
import { UserError } from '../util/errors.js';

/** The call an answer is for: its protocol and the request the harness sent. */
export interface AnsweredCall {
  protocol: ProtocolName;
  request: unknown;
}

/** An OpenAI Chat assistant message, the form the inspector shows for every protocol's answer. */
const ChatAnswerSchema = z.object({
  role: z.literal('assistant').optional(),
  content: z.string().nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
  /** vLLM's newer name for reasoning_content. */
  reasoning: z.string().nullable().optional(),
  tool_calls: z
    .array(
      z.object({
        id: z.string().min(1).optional(),
        type: z.literal('function').optional(),
        function: z.object({ name: z.string().min(1), arguments: z.string() }),
      }),
    )
    .optional(),
});

const CHAT_EXAMPLE = '{"content": "…", "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}}]}';
const SHAPES: Record<ProtocolName, string> = {
  chat: `a Chat assistant message such as ${CHAT_EXAMPLE}`,
  responses: `a list of Responses output items such as [{"type": "function_call", "name": "exec_command", "arguments": "{\\"cmd\\": \\"ls\\"}"}] (or {"output": [...]}), or a Chat assistant message such as ${CHAT_EXAMPLE}`,
  anthropic: `a list of Anthropic content blocks such as [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}] (or {"content": [...]}), or a Chat assistant message such as ${CHAT_EXAMPLE}`,
};

/** Item types a Responses answer is made of (the rest are inputs: tool outputs, user messages). */
const RESPONSES_ANSWER_ITEMS = new Set(['message', 'function_call', 'custom_tool_call', 'reasoning']);

/**
 * Checks an edited answer for a call and turns it into the Chat assistant message the proxy serves
 * (translated back into the call's protocol on the way to the harness). Accepted: the call's own
 * protocol shape (a Responses output item list, an Anthropic content block list) or a Chat assistant
 * message; tool calls must name tools the request declares, with a JSON object as arguments that
 * holds the tool's required parameters. Throws a UserError naming what is wrong.
 */
export function parseForkAnswer(text: string, call: AnsweredCall): ScriptedMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UserError(`the edited answer is not valid JSON: ${(err as Error).message}`, `write ${SHAPES[call.protocol]}`);
  }
  const message = answerMessage(raw, call.protocol, 'the edited answer');
  checkAgainstRequest(message, call);
  return message;
}

/** The answer a recorded call received, as the Chat assistant message a fork serves again. */
export function recordedAnswer(call: AnsweredCall & { seq: number; response: unknown }): ScriptedMessage {
  const response = call.response as Record<string, unknown> | null;
  const what = `call ${call.seq}'s recorded answer`;
  if (call.protocol === 'responses') return answerMessage(response?.output, 'responses', what);
  if (call.protocol === 'anthropic') return answerMessage(response?.content, 'anthropic', what);
  const choices = response?.choices;
  const message = Array.isArray(choices) ? (choices[0] as { message?: unknown } | undefined)?.message : undefined;
  if (!message) throw new UserError(`${what} holds no assistant message: the call cannot be replayed`);
  return answerMessage(message, 'chat', what);
}

/** Whichever shape `raw` is in (the protocol's own, or a Chat message), as a Chat assistant message with tool call ids. */
function answerMessage(raw: unknown, protocol: ProtocolName, what: string): ScriptedMessage {
  const hint = `write ${SHAPES[protocol]}`;
  const record = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (protocol === 'responses' && (Array.isArray(raw) || Array.isArray(record?.output))) {
    return fromResponsesItems((Array.isArray(raw) ? raw : record!.output) as unknown[], what, hint);
  }
  if (protocol === 'anthropic' && (Array.isArray(raw) || Array.isArray(record?.content))) {
    return fromAnthropicBlocks((Array.isArray(raw) ? raw : record!.content) as unknown[], what, hint);
  }
  if (!record) throw new UserError(`${what} is not ${protocol === 'chat' ? 'an assistant message object' : 'a list or an assistant message object'}: got ${JSON.stringify(raw)?.slice(0, 80)}`, hint);
  const parsed = ChatAnswerSchema.safeParse(record);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
    throw new UserError(`${what} is not a valid assistant message: ${issues}`, 'content is a string or null; each tool call is {"type": "function", "function": {"name": …, "arguments": "<JSON text>"}}');
  }
  const { content, reasoning_content, reasoning, tool_calls: calls = [] } = parsed.data;
  return message(content ?? null, reasoning_content ?? reasoning ?? undefined, calls.map((c) => ({ id: c.id ?? newId('call'), name: c.function.name, arguments: c.function.arguments })));
}

function fromResponsesItems(items: unknown[], what: string, hint: string): ScriptedMessage {
  const filled = items.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new UserError(`${what}: output[${i}] is not an item object`, hint);
    const { type, role } = item as { type?: unknown; role?: unknown };
    const kind = type === undefined && role !== undefined ? 'message' : type;
    if (typeof kind !== 'string' || !RESPONSES_ANSWER_ITEMS.has(kind)) {
      throw new UserError(`${what}: output[${i}].type ${JSON.stringify(kind ?? null)} is not part of an answer (answer items: ${[...RESPONSES_ANSWER_ITEMS].join(', ')})`, hint);
    }
    if (kind === 'message' && role !== undefined && role !== 'assistant') throw new UserError(`${what}: output[${i}] is a ${String(role)} message; an answer's messages have role "assistant"`, hint);
    // the user need not invent call ids: the harness only needs them to match its tool outputs
    if ((kind === 'function_call' || kind === 'custom_tool_call') && (item as { call_id?: unknown }).call_id === undefined) return { ...item, call_id: newId('call') };
    return { ...item, ...(kind === 'message' ? { role: 'assistant' } : {}) };
  });
  if (filled.length === 0) throw new UserError(`${what} is an empty list of output items`, hint);
  const messages = translated(() => responsesChatMessages({ input: filled }), what, hint, (m) => m.replace(/^invalid responses request: /, '').replace(/\binput\[/g, 'output['));
  return merged(messages as ChatLike[]);
}

function fromAnthropicBlocks(blocks: unknown[], what: string, hint: string): ScriptedMessage {
  if (blocks.length === 0) throw new UserError(`${what} is an empty list of content blocks`, hint);
  const filled = blocks.map((block) => {
    const b = block as { type?: unknown; id?: unknown } | null;
    return b && typeof b === 'object' && b.type === 'tool_use' && b.id === undefined ? { ...b, id: newId('toolu') } : block;
  });
  const messages = translated(
    () => {
      // validated as the assistant turn of a request, the shape a harness echoes it back in
      const request = parseMessagesRequest({ model: 'fork', max_tokens: 1, messages: [{ role: 'user', content: '.' }, { role: 'assistant', content: filled }] });
      return anthropicChatMessages([request.messages[1] as AnthropicMessage]);
    },
    what,
    hint,
    (m) => m.replace(/\bmessages\.[01]\.content\./g, 'content.').replace(/ in assistant messages/, ' in an answer'),
  );
  return merged(messages as ChatLike[]);
}

type ChatLike = { role: string; content?: unknown; reasoning_content?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };

/** The Chat messages a protocol's answer became, as one assistant turn: reasoning, text, then every tool call. */
function merged(messages: ChatLike[]): ScriptedMessage {
  const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('');
  const reasoning = messages.map((m) => m.reasoning_content ?? '').join('');
  const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
  return message(text || null, reasoning || undefined, calls);
}

function message(content: string | null, reasoning: string | undefined, calls: { id: string; name: string; arguments: string }[]): ScriptedMessage {
  return {
    content,
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
  };
}

/** Runs a protocol translator, turning its 400 (which names the field) into a UserError about the answer. */
function translated<T>(run: () => T, what: string, hint: string, rename: (message: string) => string): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ProxyHttpError) throw new UserError(`${what} is not valid: ${rename(err.message)}`, hint);
    throw err;
  }
}

/** Says something; calls declared tools with a JSON object holding each tool's required parameters. */
function checkAgainstRequest(answer: ScriptedMessage, call: AnsweredCall): void {
  const calls = answer.tool_calls ?? [];
  if (!answer.content && calls.length === 0) throw new UserError('the edited answer says nothing: give it text, tool calls, or both');
  const tools = declaredTools(call);
  calls.forEach((toolCall, i) => {
    const { name, arguments: args } = toolCall.function;
    const tool = tools.get(name);
    if (tools.size > 0 && !tool) throw new UserError(`tool call ${i + 1} names tool "${name}", which the request does not declare`, `declared tools: ${[...tools.keys()].join(', ')}`);
    let value: unknown;
    try {
      value = JSON.parse(args);
    } catch (err) {
      throw new UserError(`tool call ${i + 1} (${name}): arguments are not valid JSON text: ${(err as Error).message}`, 'arguments is a string holding a JSON object, e.g. "{\\"command\\": \\"ls\\"}"');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UserError(`tool call ${i + 1} (${name}): arguments must encode a JSON object, got ${JSON.stringify(value)}`);
    const missing = (tool?.required ?? []).filter((key) => !(key in value));
    if (missing.length > 0) throw new UserError(`tool call ${i + 1} (${name}): the required parameter${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`, `the tool's parameters: ${JSON.stringify(tool?.properties ?? [])}`);
  });
}

/** The request's tools by the names the model calls them (Chat names: a Responses namespace is flattened). */
function declaredTools(call: AnsweredCall): Map<string, { required: string[]; properties: string[] }> {
  const protocol = PROTOCOLS.find((p) => p.name === call.protocol && !p.paths.some((path) => path.endsWith('count_tokens')));
  let tools: unknown;
  try {
    const prepared = protocol?.prepare(call.request);
    tools = prepared && 'upstreamRequest' in prepared ? prepared.upstreamRequest.tools : undefined;
  } catch {
    tools = undefined; // a recorded request that no longer validates: only the answer's own shape is checked
  }
  const out = new Map<string, { required: string[]; properties: string[] }>();
  for (const tool of Array.isArray(tools) ? tools : []) {
    const fn = (tool as { function?: { name?: unknown; parameters?: { required?: unknown; properties?: unknown } } }).function;
    if (typeof fn?.name !== 'string') continue;
    const required = Array.isArray(fn.parameters?.required) ? fn.parameters.required.filter((k): k is string => typeof k === 'string') : [];
    const properties = typeof fn.parameters?.properties === 'object' && fn.parameters.properties !== null ? Object.keys(fn.parameters.properties) : [];
    out.set(fn.name, { required, properties });
  }
  return out;
}

function newId(prefix: 'call' | 'toolu'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
