import type { ChatUsage } from '../../../engine-wire/chat-wire.js';
import { responsesId, type OutputItem } from './output-items.js';
import type { ResponsesRequest } from './request-schema.js';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The request settings a `response` object echoes. */
type EchoedSettings = Pick<ResponsesRequest, 'instructions' | 'max_output_tokens' | 'parallel_tool_calls' | 'temperature' | 'tool_choice' | 'tools' | 'top_p'>;

/** The fields of a `response` object fixed when the request arrives. */
export interface ResponseHeader {
  id: string;
  created_at: number;
  model: string;
  /** Not the whole request: the header lives as long as the call, and `input` is the whole conversation. */
  request: EchoedSettings;
}

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  usage: ResponsesUsage | null;
  incompleteReason?: string;
  error?: { code: string; message: string };
}

export function responseHeader(request: ResponsesRequest): ResponseHeader {
  const { instructions, max_output_tokens, parallel_tool_calls, temperature, tool_choice, tools, top_p } = request;
  return {
    id: responsesId('resp'),
    created_at: Math.floor(Date.now() / 1000),
    model: request.model,
    request: { instructions, max_output_tokens, parallel_tool_calls, temperature, tool_choice, tools, top_p },
  };
}

/** A `response` object as OpenAI sends it, echoing the request's settings. */
export function responseObject(header: ResponseHeader, state: ResponseState): Record<string, unknown> {
  const { request } = header;
  return {
    id: header.id,
    object: 'response',
    created_at: header.created_at,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: {},
    model: header.model,
    output: state.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: request.temperature ?? null,
    text: { format: { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: state.usage,
  };
}

/** The upstream's Chat usage in Responses terms; null when the upstream sent none. */
export function responsesUsage(usage: ChatUsage | null | undefined): ResponsesUsage | null {
  if (!usage) return null;
  const input = numberOr0(usage.prompt_tokens);
  const output = numberOr0(usage.completion_tokens);
  const promptDetails = usage.prompt_tokens_details as { cached_tokens?: unknown } | null | undefined;
  const completionDetails = usage.completion_tokens_details as { reasoning_tokens?: unknown } | null | undefined;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: numberOr0(promptDetails?.cached_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: numberOr0(completionDetails?.reasoning_tokens) },
    total_tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : input + output,
  };
}

/** How a Chat finish reason ends a response: `length` is OpenAI's `max_output_tokens`. */
export function finishOutcome(finishReason: string | null | undefined): { status: 'completed' | 'incomplete'; incompleteReason?: string } {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
