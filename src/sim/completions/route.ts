import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { ROLLOUT_HEADER, TASK_HEADER } from '../../engine-wire/request-headers.js';
import type { EnginePace } from '../engine-pace.js';
import type { SimModel } from '../models/types.js';
import type { Policy } from '../policies/types.js';
import { afterPrefill, checkContextLength, headerValue } from '../serving.js';
import type { TaskResolver } from '../task-resolver.js';
import { openforgeChat, parseCompletionsRequest } from './request.js';
import { completionsBody, completionsEvents, newCompletionsId, type CompletionsAnswer } from './response.js';

interface CompletionsDeps {
  sim: SimModel;
  policy: Policy;
  model: string;
  maxModelLen: number;
  engine: EnginePace;
  resolveTask: TaskResolver;
  /** The weight version the sim serves (SimServer.setWeightVersion). */
  weights?: { version?: string };
}

/**
 * vLLM's `POST /v1/completions` with a prompt of token ids (or text), whole or streamed, with
 * `return_token_ids` and legacy logprobs: what a token-in client (the recording proxy's token-in mode) sends.
 */
export function completionsRoute(app: FastifyInstance, deps: CompletionsDeps): void {
  app.post('/v1/completions', async (httpRequest, reply) => {
    const request = parseCompletionsRequest(httpRequest.body);
    const chat = openforgeChat(request);
    const promptIds = typeof request.prompt === 'string' ? deps.sim.encode(request.prompt) : request.prompt;
    const maxTokens = request.max_tokens ?? undefined;
    checkContextLength(promptIds.length, maxTokens, deps.maxModelLen, 'prompt');
    const task = deps.policy.needsTask ? deps.resolveTask(headerValue(httpRequest, TASK_HEADER), chat.messages) : undefined;
    const answer = deps.policy.respond(chat, { task, rolloutId: headerValue(httpRequest, ROLLOUT_HEADER), weightVersion: deps.weights?.version });
    const input: CompletionsAnswer = {
      id: newCompletionsId(),
      created: Math.floor(Date.now() / 1000),
      model: deps.model,
      sim: deps.sim,
      request,
      promptIds,
      completion: deps.sim.complete(answer, chat, maxTokens),
    };
    const prefillMs = deps.engine.prefillMs(promptIds.length);
    if (!request.stream) {
      if (prefillMs > 0) await sleep(prefillMs);
      return completionsBody(input);
    }
    reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
    return reply.send(Readable.from(afterPrefill(input, deps.engine, prefillMs, completionsEvents)));
  });
}
