import type { ChatBody } from '../../../engine-wire/chat-wire.js';
import { prepareCountTokens } from './count-tokens.js';
import { anthropicErrorBody } from './errors.js';
import { parseMessagesRequest } from './request-schema.js';
import { anthropicResponse } from './response.js';
import { AnthropicStreamTranslator } from './stream.js';
import { chatRequest } from './to-chat.js';
import type { Endpoint, PreparedCall, Protocol } from '../types.js';
import { anthropicRecords } from './records.js';

/** `POST /v1/messages`, translated to and from Chat Completions. */
const messagesEndpoint: Endpoint = {
  name: 'anthropic',
  paths: ['/messages'],

  prepare(body: unknown): PreparedCall {
    const request = parseMessagesRequest(body);
    // the translators see the model alone: a call waiting for its model keeps them, not the request
    const model = request.model;
    return {
      model,
      stream: request.stream === true,
      label: 'policy',
      upstreamRequest: chatRequest(request),
      translateResponse: (upstream: ChatBody) => anthropicResponse(upstream, model),
      streamTranslator: () => new AnthropicStreamTranslator(model),
    };
  },

  errorBody: anthropicErrorBody,
};

/** `POST /v1/messages/count_tokens`, answered without generating anything. */
const countTokensEndpoint: Endpoint = {
  name: 'anthropic',
  paths: ['/messages/count_tokens'],
  prepare: prepareCountTokens,
  errorBody: anthropicErrorBody,
};

/** Anthropic Messages, the protocol Claude Code speaks. */
export const anthropicProtocol: Protocol = { name: 'anthropic', endpoints: [messagesEndpoint, countTokensEndpoint], records: anthropicRecords };
