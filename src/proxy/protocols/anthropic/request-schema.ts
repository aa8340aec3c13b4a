import { z } from 'zod';
import { invalidAnthropicRequest } from './errors.js';

/**
 * The Anthropic Messages request fields the proxy translates. Objects are loose: fields it does not
 * use (`cache_control`, `metadata`, `thinking`, `citations`, …) are accepted and ignored.
 */

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

const ImageSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
]);
const ImageBlock = z.looseObject({ type: z.literal('image'), source: ImageSource });

const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});

const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextBlock, ImageBlock]))]).optional(),
  is_error: z.boolean().optional(),
});

const ThinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() });
const RedactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

const ContentBlock = z.discriminatedUnion('type', [TextBlock, ImageBlock, ToolUseBlock, ToolResultBlock, ThinkingBlock, RedactedThinkingBlock]);

const Message = z.looseObject({
  // Claude Code ≥ 2.1 sends a mid-conversation system message (its environment block) inside messages.
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(ContentBlock)]),
});

/** Custom tools have an `input_schema`; server tools (`web_search_20250305`, …) have a versioned `type` instead. */
const Tool = z.looseObject({
  type: z.string().optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
});

const ToolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('none') }),
]);

/** What count_tokens accepts: the prompt part of a Messages request. */
const CountTokensRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  system: z.union([z.string(), z.array(TextBlock)]).optional(),
  tools: z.array(Tool).optional(),
  tool_choice: ToolChoice.optional(),
});

const MessagesRequest = CountTokensRequest.extend({
  max_tokens: z.number().int().min(1),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  stop_sequences: z.array(z.string()).optional(),
});

export type AnthropicContentBlock = z.infer<typeof ContentBlock>;
export type AnthropicImageBlock = z.infer<typeof ImageBlock>;
export type AnthropicTextBlock = z.infer<typeof TextBlock>;
export type AnthropicToolResultBlock = z.infer<typeof ToolResultBlock>;
export type AnthropicMessage = z.infer<typeof Message>;
export type AnthropicTool = z.infer<typeof Tool>;
export type AnthropicToolChoice = z.infer<typeof ToolChoice>;
export type AnthropicCountTokensRequest = z.infer<typeof CountTokensRequest>;
export type AnthropicMessagesRequest = z.infer<typeof MessagesRequest>;

export function parseMessagesRequest(body: unknown): AnthropicMessagesRequest {
  return parseWith(MessagesRequest, body);
}

export function parseCountTokensRequest(body: unknown): AnthropicCountTokensRequest {
  return parseWith(CountTokensRequest, body);
}

function parseWith<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const { path, message } = issue ? innermost(issue, []) : { path: [], message: 'invalid request' };
  throw invalidAnthropicRequest(path.length > 0 ? path.map(String).join('.') : 'body', message);
}

type Issue = z.core.$ZodIssue;

/**
 * zod reports a failed union (`content` is a string or blocks) as a bare "Invalid input"; the
 * useful issue is inside the branch that got furthest, e.g. `messages.0.content.1.type`.
 */
function innermost(issue: Issue, base: readonly PropertyKey[]): { path: PropertyKey[]; message: string } {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union') {
    const deepest = issue.errors
      .map((branch) => branch[0])
      .filter((candidate): candidate is Issue => candidate !== undefined && candidate.path.length > 0)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (deepest) return innermost(deepest, path);
    const expected = issue.errors.flatMap((branch) => branch.flatMap((i) => (i.code === 'invalid_type' ? [i.expected] : [])));
    if (expected.length > 0) return { path, message: `Invalid input: expected ${expected.join(' or ')}` };
  }
  const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  return { path, message: missing ? 'Field required' : issue.message };
}
