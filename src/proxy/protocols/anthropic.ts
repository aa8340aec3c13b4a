import type { ChatBody } from '../../engine-wire/chat-wire.js';
import { prepareCountTokens } from './anthropic-count-tokens.js';
import { anthropicErrorBody } from './anthropic-errors.js';
import { parseMessagesRequest } from './anthropic-request-schema.js';
import { anthropicResponse } from './anthropic-response.js';
import { AnthropicStreamTranslator } from './anthropic-stream.js';
import { chatRequest } from './anthropic-to-chat.js';
import type { PreparedCall, Protocol } from './types.js';

/** Anthropic Messages (Claude Code): `POST /v1/messages`, translated to and from Chat Completions. */
export const anthropicMessagesProtocol: Protocol = {
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
export const anthropicCountTokensProtocol: Protocol = {
  name: 'anthropic',
  paths: ['/messages/count_tokens'],
  prepare: prepareCountTokens,
  errorBody: anthropicErrorBody,
};

export const anthropicProtocols: readonly Protocol[] = [anthropicMessagesProtocol, anthropicCountTokensProtocol];
