import { z } from 'zod';

/**
 * The Chat Completions request the simulated model accepts, as vLLM does: known fields are
 * type-checked, unknown ones are kept and ignored (vLLM accepts many extensions).
 */

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImageUrlPart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.looseObject({ url: z.string() })]),
});
const ContentPart = z.discriminatedUnion('type', [TextPart, ImageUrlPart]);
export type ContentPart = z.infer<typeof ContentPart>;

const Content = z.union([z.string(), z.array(ContentPart)]);
export type MessageContent = z.infer<typeof Content>;

const ToolCall = z.looseObject({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const SystemMessage = z.looseObject({ role: z.enum(['system', 'developer']), content: Content });
const UserMessage = z.looseObject({ role: z.literal('user'), content: Content });
const AssistantMessage = z.looseObject({
  role: z.literal('assistant'),
  content: Content.nullish(),
  tool_calls: z.array(ToolCall).nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
});
const ToolMessage = z.looseObject({ role: z.literal('tool'), content: Content, tool_call_id: z.string().optional() });

const Message = z.discriminatedUnion('role', [SystemMessage, UserMessage, AssistantMessage, ToolMessage]);
export type ChatMessage = z.infer<typeof Message>;
export type AssistantChatMessage = z.infer<typeof AssistantMessage>;

const Tool = z.looseObject({
  type: z.string(),
  function: z
    .looseObject({
      name: z.string(),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type ToolDefinition = z.infer<typeof Tool>;

const NamedToolChoice = z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) });

export const ChatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(Message).min(1),
  tools: z.array(Tool).nullish(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), NamedToolChoice]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  return_token_ids: z.boolean().nullish(),
  return_tokens_as_token_ids: z.boolean().nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  seed: z.number().int().nullish(),
  /** /tokenize only: end the prompt with the assistant turn's opening (default true). */
  add_generation_prompt: z.boolean().nullish(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;
