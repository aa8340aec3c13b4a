import { z } from 'zod';
import { invalidResponsesRequest, parseField } from './validation.js';

/**
 * The top level of a Responses request. Input items and tools are checked one by one where they
 * are translated (`responses-input.ts`, `responses-tools.ts`), so their errors name the item.
 * Unknown top-level fields are tolerated: Codex adds new ones (e.g. `client_metadata`) often.
 */
const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.unknown())], { error: 'expected a string or a list of input items' }).nullish(),
  instructions: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string() })]).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stream: z.boolean().nullish(),
  // tolerated and ignored: effort and summaries, storage, extra output, cache key, output format
  reasoning: z.looseObject({}).nullish(),
  store: z.boolean().nullish(),
  include: z.array(z.string()).nullish(),
  prompt_cache_key: z.string().nullish(),
  text: z.looseObject({}).nullish(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/** Fields that need server-side state the proxy does not keep; ignoring them would silently lose context. */
const STATEFUL_FIELDS: Record<string, string> = {
  previous_response_id: 'the recording proxy stores no responses: send the whole conversation in input',
  conversation: 'the recording proxy stores no conversations: send the whole conversation in input',
  prompt: 'the recording proxy has no stored prompts: send instructions and input',
  background: 'the recording proxy answers in the foreground only',
};

/** Validates the top level of a Responses body; a 400 names the first wrong field. */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  const request = parseField(responsesRequestSchema, body, '');
  for (const [field, why] of Object.entries(STATEFUL_FIELDS)) {
    const value = request[field];
    if (value !== undefined && value !== null && value !== false) throw invalidResponsesRequest(field, why);
  }
  return request;
}
