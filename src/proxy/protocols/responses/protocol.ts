import type { ChatBody, ChatRequestBody } from '../../../engine-wire/chat-wire.js';
import { chatMessages } from './input.js';
import { parseResponsesRequest } from './request-schema.js';
import { responseHeader } from './response-object.js';
import { ResponsesStreamTranslator } from './stream.js';
import { translateToolChoice, translateTools } from './tools.js';
import { responseFromCompletion } from './whole.js';
import type { Endpoint, PreparedCall, Protocol } from '../types.js';
import { responsesRecords } from './records.js';

/** OpenAI's error body for the Responses API (it carries `param`, which the proxy's messages name inline). */
export function responsesErrorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

/** `POST /v1/responses`: translated to Chat Completions for the upstream, and the answer (whole or streamed) back into a `response`. */
const responsesEndpoint = {
  name: 'responses',
  paths: ['/responses'],

  prepare(body: unknown): PreparedCall {
    const request = parseResponsesRequest(body);
    const tools = translateTools(request.tools);
    const upstreamRequest: ChatRequestBody = { model: request.model, messages: chatMessages(request), stream: request.stream === true };
    if (tools.tools.length > 0) {
      upstreamRequest.tools = tools.tools;
      const toolChoice = translateToolChoice(request.tool_choice);
      if (toolChoice !== undefined) upstreamRequest.tool_choice = toolChoice;
      if (request.parallel_tool_calls != null) upstreamRequest.parallel_tool_calls = request.parallel_tool_calls;
    }
    if (request.max_output_tokens != null) upstreamRequest.max_tokens = request.max_output_tokens;
    if (request.temperature != null) upstreamRequest.temperature = request.temperature;
    if (request.top_p != null) upstreamRequest.top_p = request.top_p;

    // what the translators need, and no more: a call waiting for its model keeps them
    const header = responseHeader(request);
    const toolNames = tools.names;
    return {
      model: request.model,
      stream: request.stream === true,
      label: 'policy',
      upstreamRequest,
      translateResponse: (upstream: ChatBody) => responseFromCompletion(header, upstream, toolNames),
      streamTranslator: () => new ResponsesStreamTranslator(header, toolNames),
    };
  },

  errorBody: responsesErrorBody,
} satisfies Endpoint;

/** OpenAI Responses, the only protocol Codex speaks. */
export const responsesProtocol: Protocol = { name: 'responses', endpoints: [responsesEndpoint], records: responsesRecords };
