import { z } from 'zod';
import { newCallId } from '../proxy/protocols/answer-errors.js';
import { protocolRecords, protocols } from '../proxy/protocols/registry.js';
import type { ChatLikeMessage } from '../proxy/protocols/types.js';
import type { ScriptedMessage } from '../proxy/session.js';
import type { ProtocolName } from '../records/call.js';
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
    throw new UserError(`the edited answer is not valid JSON: ${(err as Error).message}`, `write ${protocolRecords(call.protocol).answerShape}`);
  }
  const message = answerMessage(raw, call.protocol, 'the edited answer');
  checkAgainstRequest(message, call);
  return message;
}

/** The answer a recorded call received, as the Chat assistant message a fork serves again. */
export function recordedAnswer(call: AnsweredCall & { seq: number; response: unknown }): ScriptedMessage {
  const what = `call ${call.seq}'s recorded answer`;
  const answer = protocolRecords(call.protocol).recordedAnswer(call.response);
  if (answer === undefined) throw new UserError(`${what} holds no assistant message: the call cannot be replayed`);
  return answerMessage(answer, call.protocol, what);
}

/** Whichever shape `raw` is in (the protocol's own, or a Chat message), as a Chat assistant message with tool call ids. */
function answerMessage(raw: unknown, protocol: ProtocolName, what: string): ScriptedMessage {
  const records = protocolRecords(protocol);
  const hint = `write ${records.answerShape}`;
  const inOwnShape = records.answerAsChat(raw, what, hint);
  if (inOwnShape) return merged(inOwnShape);
  const record = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (!record) throw new UserError(`${what} is not an assistant message object: got ${JSON.stringify(raw)?.slice(0, 80)}`, hint);
  const parsed = ChatAnswerSchema.safeParse(record);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
    throw new UserError(
      `${what} is not a valid assistant message: ${issues}`,
      'content is a string or null; each tool call is {"type": "function", "function": {"name": …, "arguments": "<JSON text>"}}',
    );
  }
  const { content, reasoning_content, reasoning, tool_calls: calls = [] } = parsed.data;
  return message(
    content ?? null,
    reasoning_content ?? reasoning ?? undefined,
    calls.map((c) => ({ id: c.id ?? newCallId('call'), name: c.function.name, arguments: c.function.arguments })),
  );
}

/** The Chat messages a protocol's answer became, as one assistant turn: reasoning, text, then every tool call. */
function merged(messages: ChatLikeMessage[]): ScriptedMessage {
  const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('');
  const reasoning = messages.map((m) => m.reasoning_content ?? '').join('');
  const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
  return message(text || null, reasoning || undefined, calls);
}

function message(content: string | null, reasoning: string | undefined, calls: { id: string; name: string; arguments: string }[]): ScriptedMessage {
  return {
    content,
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(calls.length > 0
      ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  };
}

/** Says something; calls declared tools with a JSON object holding each tool's required parameters. */
function checkAgainstRequest(answer: ScriptedMessage, call: AnsweredCall): void {
  const calls = answer.tool_calls ?? [];
  if (!answer.content && calls.length === 0) throw new UserError('the edited answer says nothing: give it text, tool calls, or both');
  const tools = declaredTools(call);
  calls.forEach((toolCall, i) => {
    const { name, arguments: args } = toolCall.function;
    const tool = tools.get(name);
    if (tools.size > 0 && !tool)
      throw new UserError(`tool call ${i + 1} names tool "${name}", which the request does not declare`, `declared tools: ${[...tools.keys()].join(', ')}`);
    let value: unknown;
    try {
      value = JSON.parse(args);
    } catch (err) {
      throw new UserError(
        `tool call ${i + 1} (${name}): arguments are not valid JSON text: ${(err as Error).message}`,
        'arguments is a string holding a JSON object, e.g. "{\\"command\\": \\"ls\\"}"',
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new UserError(`tool call ${i + 1} (${name}): arguments must encode a JSON object, got ${JSON.stringify(value)}`);
    const missing = (tool?.required ?? []).filter((key) => !(key in value));
    if (missing.length > 0)
      throw new UserError(
        `tool call ${i + 1} (${name}): the required parameter${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`,
        `the tool's parameters: ${JSON.stringify(tool?.properties ?? [])}`,
      );
  });
}

/** The request's tools by the names the model calls them (Chat names: a Responses namespace is flattened). */
function declaredTools(call: AnsweredCall): Map<string, { required: string[]; properties: string[] }> {
  // the protocol's first endpoint is its model call (count_tokens and the like come after it)
  const endpoint = protocols().find((p) => p.name === call.protocol)?.endpoints[0];
  let tools: unknown;
  try {
    const prepared = endpoint?.prepare(call.request);
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
