import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Task } from '../config/task.js';
import { clientErrorAnswer } from '../util/client-error.js';
import { chatCompletionBody, newCompletionId, type ResponseInput } from './chat-response.js';
import { chatCompletionEvents, streamPauses } from './chat-stream.js';
import { parseChatRequest } from './parse-chat-request.js';
import { createPolicy } from './policies/create-policy.js';
import type { PolicySpec } from './policies/sim-spec.js';
import type { Policy, PolicyAnswer } from './policies/types.js';
import { SimHttpError, openAiErrorBody } from './sim-http-error.js';
import { ROLLOUT_HEADER, TASK_HEADER } from '../engine-wire/request-headers.js';
import { SIM_HEADER, SIM_OWNER } from './sim-labels.js';
import { createTaskResolver } from './task-resolver.js';
import { enginePace } from './engine-pace.js';
import { loadFamily } from '../families/registry.js';
import { chatmlModel } from './models/chatml.js';
import { familyModel } from './models/family.js';
import type { SimModel } from './models/types.js';
import { completionsRoute } from './completions/route.js';
import { afterPrefill, checkContextLength, headerValue } from './serving.js';

export interface SimServerOptions {
  policy: PolicySpec | Policy;
  /** Tasks the oracle and noisy policies can solve. */
  tasks?: readonly Task[];
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Served model id; defaults to `sim-<policy>` (e.g. `sim-oracle`, `sim-noisy-0.3`). */
  modelName?: string;
  /** Pause before each streamed chunk, to give streams a realistic duration. */
  tokenDelayMs?: number;
  /**
   * Non-streamed answers take as long as their stream would (one `tokenDelayMs` per chunk), as an
   * engine's do: it generates the same tokens either way. Off: non-streamed answers come at once.
   */
  paceWholeAnswers?: boolean;
  /**
   * Prompt tokens the simulated engine prefills per second: every answer's first token waits
   * `prompt tokens / rate` (streamed or not), as a GPU engine's compute-bound prefill does. Unset: no
   * prefill time, the first token comes after `tokenDelayMs`.
   */
  prefillTokensPerSecond?: number;
  /**
   * Tokens the simulated engine decodes per second across all the answers it is decoding: a decode step (at
   * least `tokenDelayMs`) lasts `answers being decoded / rate`, as continuous batching's does. Unset: no limit.
   */
  decodeTokensPerSecond?: number;
  /** The recorded answers a `replay` spec plays back. */
  replayAnswers?: readonly PolicyAnswer[];
  /** Prompt plus max_tokens beyond this is refused with 400, as vLLM does. */
  maxModelLen?: number;
  /** The real model family whose wire the sim speaks (`qwen3`); the spec's own, else the built-in ChatML model. */
  family?: string;
}

export interface SimServer {
  /** Base URL including `/v1`. */
  url: string;
  /** The served model id. */
  model: string;
  /** The weights it serves from now on: the oracle's answers depend on them (as a trained policy's would). */
  setWeightVersion(version: string | undefined): void;
  close(): Promise<void>;
}

export const DEFAULT_MAX_MODEL_LEN = 262144;
const BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** The sim's fastify app, not yet listening (tests use `inject` or `listen`). */
export function buildSimApp(options: SimServerOptions): FastifyInstance {
  return buildApp(options).app;
}

export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const { app, model, weights } = buildApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/v1`,
    model,
    setWeightVersion: (version) => (weights.version = version),
    close: () => app.close(),
  };
}

function buildApp(options: SimServerOptions): { app: FastifyInstance; model: string; weights: { version?: string } } {
  const policy = 'respond' in options.policy ? options.policy : createPolicy(options.policy, options.replayAnswers);
  const model = options.modelName ?? `sim-${policy.name.replace(/[^A-Za-z0-9._-]/g, '-')}`;
  const family = options.family ?? ('respond' in options.policy ? undefined : options.policy.family);
  const sim: SimModel = family ? familyModel(loadFamily(family)) : chatmlModel;
  const maxModelLen = options.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
  const engine = enginePace(options);
  const resolveTask = createTaskResolver(options.tasks ?? []);
  const started = Math.floor(Date.now() / 1000);
  const weights: { version?: string } = {};

  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    clientErrorHandler: clientErrorAnswer((message, status) => openAiErrorBody(status, message, null, 'malformed_http_request')),
  });

  app.addHook('onRequest', async (_request, reply) => {
    reply.header(SIM_HEADER, policy.name);
  });

  app.setErrorHandler<FastifyError>((error, _request, reply) => {
    if (error instanceof SimHttpError) {
      return reply.code(error.status).send(openAiErrorBody(error.status, error.message, error.param, error.code));
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    const { message, code } = status === 500 ? { message: `the sim server failed: ${error.message}`, code: null } : describeRequestError(error);
    return reply.code(status).send(openAiErrorBody(status, message, null, code));
  });

  app.setNotFoundHandler((request, reply) => {
    const message = `no route ${request.method} ${request.url}: the sim serves POST /v1/chat/completions, POST /v1/completions, GET /v1/models, POST /tokenize, POST /detokenize, GET /health`;
    return reply.code(404).send(openAiErrorBody(404, message, null, 'not_found'));
  });

  app.get('/health', async (_request, reply) => reply.code(200).send());

  app.get('/v1/models', async () => ({
    object: 'list',
    data: [{ id: model, object: 'model', created: started, owned_by: SIM_OWNER, root: model, parent: null, max_model_len: maxModelLen }],
  }));

  // vLLM's tokenizer endpoint, at the root: a chat prompt rendered as for a completion, or a text
  app.post('/tokenize', async (httpRequest) => {
    const body = httpRequest.body as Record<string, unknown> | null;
    const text = typeof body === 'object' && body !== null && !('messages' in body) ? body.prompt : undefined;
    let tokens: number[];
    if (typeof text === 'string') {
      tokens = sim.encode(text);
    } else {
      const request = parseChatRequest(body);
      tokens = sim.renderPrompt(request, request.add_generation_prompt !== false);
    }
    return { count: tokens.length, max_model_len: maxModelLen, tokens, token_strs: null };
  });

  // vLLM's inverse of /tokenize
  app.post('/detokenize', async (httpRequest) => {
    const body = httpRequest.body as Record<string, unknown> | null;
    const tokens = typeof body === 'object' && body !== null ? body.tokens : undefined;
    if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t) && t >= 0)) {
      throw new SimHttpError(400, 'tokens: expected a list of token ids', { param: 'tokens', code: 'invalid_value' });
    }
    try {
      return { prompt: sim.decode(tokens as number[]) };
    } catch (err) {
      throw new SimHttpError(400, `tokens: ${(err as Error).message}`, { param: 'tokens', code: 'invalid_value' });
    }
  });

  completionsRoute(app, { sim, policy, model, maxModelLen, engine, resolveTask, weights });

  app.post('/v1/chat/completions', async (httpRequest, reply) => {
    const request = parseChatRequest(httpRequest.body);
    if (request.n != null && request.n !== 1) {
      throw new SimHttpError(400, `n: the simulated model generates exactly one choice per request, got n=${request.n}`, {
        param: 'n',
        code: 'unsupported_value',
      });
    }
    if (request.top_logprobs && !request.logprobs) {
      throw new SimHttpError(400, 'top_logprobs: needs "logprobs": true', { param: 'top_logprobs', code: 'invalid_value' });
    }
    const promptIds = sim.renderPrompt(request, true);
    const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
    checkContextLength(promptIds.length, maxTokens, maxModelLen, 'messages');
    const rolloutId = headerValue(httpRequest, ROLLOUT_HEADER);
    const task = policy.needsTask ? resolveTask(headerValue(httpRequest, TASK_HEADER), request.messages) : undefined;
    const answer = policy.respond(request, { task, rolloutId, weightVersion: weights.version });
    const input: ResponseInput = {
      id: newCompletionId(),
      created: Math.floor(Date.now() / 1000),
      model,
      sim,
      request,
      promptIds,
      completion: sim.complete(answer, request, maxTokens),
    };
    const prefillMs = engine.prefillMs(promptIds.length);
    if (!request.stream) {
      if (prefillMs > 0) await sleep(prefillMs);
      const decoded = engine.begin();
      try {
        const paceMs = options.paceWholeAnswers ? engine.stepMs() * streamPauses(input.completion) : 0;
        if (paceMs > 0) await sleep(paceMs);
      } finally {
        decoded();
      }
      return chatCompletionBody(input);
    }
    reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
    return reply.send(Readable.from(afterPrefill(input, engine, prefillMs, chatCompletionEvents)));
  });

  return { app, model, weights };
}

/** Fastify's own 4xx (body parsing, size): a message a harness author can act on, and a short code. */
function describeRequestError(error: FastifyError): { message: string; code: string | null } {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { message: `malformed JSON body: ${error.message}`, code: 'invalid_json' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { message: 'empty body: send a JSON chat completion request', code: 'empty_body' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { message: `request body is larger than the sim's limit of ${BODY_LIMIT_BYTES} bytes`, code: 'body_too_large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { message: `${error.message}: send the request as JSON with content-type: application/json`, code: 'unsupported_media_type' };
    default:
      return { message: error.message, code: null };
  }
}
