import type { ChatBody } from '../../engine-wire/chat-wire.js';
import { stripEngineFields, withoutEngineFields } from '../engine-fields.js';
import { openAIErrorBody } from '../http-error.js';
import { parseChatRequest } from './chat-request-schema.js';
import { ChatStreamTranslator } from './chat-stream.js';
import type { PreparedCall, Protocol } from './types.js';

/** OpenAI Chat Completions: the upstream's own protocol, so translation is only stripping. */
export const chatProtocol: Protocol = {
  name: 'chat',
  paths: ['/chat/completions'],

  prepare(body: unknown): PreparedCall {
    const request = parseChatRequest(body);
    const wants = {
      logprobs: request.logprobs === true,
      usage: request.stream_options?.include_usage === true,
    };
    return {
      model: request.model,
      stream: request.stream === true,
      label: 'policy',
      upstreamRequest: { ...request },
      upstreamRequestIsBody: true,
      translateResponse: (upstream: ChatBody) => stripEngineFields(upstream, { logprobs: wants.logprobs }),
      answerFromBytes: (upstream: Buffer) => withoutEngineFields(upstream, { logprobs: wants.logprobs }),
      streamTranslator: () => new ChatStreamTranslator(wants),
    };
  },

  errorBody: openAIErrorBody,
};
