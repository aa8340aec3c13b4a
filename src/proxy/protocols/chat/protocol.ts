import type { ChatBody } from '../../../engine-wire/chat-wire.js';
import { stripEngineFields } from '../../../engine-wire/engine-fields.js';
import { withoutEngineFields } from '../../calls/engine-fields.js';
import { openAIErrorBody } from '../../http/http-error.js';
import { parseChatRequest } from './request-schema.js';
import { cutChatEvent } from './event-cut.js';
import { ChatStreamTranslator } from './stream.js';
import type { Endpoint, PreparedCall, Protocol } from '../types.js';
import { chatRecords } from './records.js';

/** `POST /v1/chat/completions`: the upstream's own protocol, so translation is only stripping. */
const chatCompletions: Endpoint = {
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
      streamCut: { event: (data: string) => cutChatEvent(data, wants), view: { logprobs: wants.logprobs } },
    };
  },

  errorBody: openAIErrorBody,
};

/** OpenAI Chat Completions. */
export const chatProtocol: Protocol = { name: 'chat', endpoints: [chatCompletions], records: chatRecords };
