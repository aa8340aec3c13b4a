/**
 * TEST FAKE — a tiny stand-in for a vLLM server, for the proxy's tests only. It answers
 * `/v1/chat/completions` the way vLLM does with `return_token_ids` (top-level `prompt_token_ids`,
 * per-choice `token_ids`, per-chunk token deltas, `stop_reason`, `prompt_logprobs`,
 * `kv_transfer_params`) and follows a script of scenarios, one per request.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Scenario =
  | { kind: 'text'; text?: string; omitTokenIds?: boolean }
  | { kind: 'tool'; name: string; arguments: string }
  | { kind: 'status'; status: number; message?: string; retryAfter?: string }
  /** Streams one content chunk, then waits for `gate` before the rest (whole answers wait before anything). */
  | { kind: 'hold'; gate: Promise<void>; text?: string }
  /** Streams `chunks` content chunks, then cuts the connection. */
  | { kind: 'die'; chunks: number }
  /** Streams `chunks` content chunks, then a vLLM-style `{error}` event. */
  | { kind: 'error-event'; chunks: number }
  /** Streams one chunk and never finishes. */
  | { kind: 'hang' }
  /** Answers 200 with these bytes as its JSON body, whatever they are. */
  | { kind: 'raw'; body: string };

export interface SeenRequest {
  body: Record<string, unknown>;
  /** The body's text as it arrived. */
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** What the fake produced for one request, to compare with what the proxy recorded. */
export interface Produced {
  promptTokenIds: number[];
  completionTokenIds: number[];
  logprobs: number[];
}

export interface FakeVllm {
  url: string;
  requests: SeenRequest[];
  produced: Produced[];
  /** Resolves when a request's connection first closes before the fake finished its answer. */
  firstEarlyClose: Promise<void>;
  earlyCloses: number;
  /** Streams the fake wrote to the end (every event handed to its socket). */
  streamsFinished: number;
  /** Bytes of stream events handed to its sockets so far. */
  bytesStreamed: number;
  /** Scenarios for the next requests, in order; when empty, requests get `{kind: 'text'}`. */
  script: Scenario[];
  close(): Promise<void>;
}

const DEFAULT_TEXT = 'Hello from the fake upstream.';

function promptIds(body: Record<string, unknown>): number[] {
  const text = JSON.stringify(body.messages ?? []);
  return Array.from({ length: 5 + (text.length % 7) }, (_, i) => 100 + ((text.charCodeAt(i % text.length) + i) % 900));
}

/** Splits text into "tokens": words with their leading space. */
function pieces(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

function tokenId(piece: string, i: number): number {
  let h = i;
  for (const c of piece) h = (h * 31 + c.charCodeAt(0)) % 50_000;
  return 1000 + h;
}

function logprob(i: number): number {
  return -0.01 * (i + 1);
}

export async function startFakeVllm(): Promise<FakeVllm> {
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  const fake: FakeVllm = {
    url: '',
    requests: [],
    produced: [],
    firstEarlyClose: Promise.resolve(),
    earlyCloses: 0,
    streamsFinished: 0,
    bytesStreamed: 0,
    script: [],
    close: () => app.close(),
  };
  let signalClosed: () => void = () => undefined;
  fake.firstEarlyClose = new Promise((resolve) => {
    signalClosed = resolve;
  });

  app.get('/v1/models', async () => ({
    object: 'list',
    data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'test-fake' }],
  }));

  const texts = new WeakMap<object, string>();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      const parsed = JSON.parse(text as string) as object;
      texts.set(parsed, text as string);
      done(null, parsed);
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.post('/v1/chat/completions', async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    fake.requests.push({ body, text: texts.get(body) ?? '', headers: { ...request.headers } });
    const scenario = fake.script.shift() ?? { kind: 'text' };
    if (scenario.kind === 'status') {
      if (scenario.retryAfter) void reply.header('retry-after', scenario.retryAfter);
      return reply.code(scenario.status).send({
        object: 'error',
        message: scenario.message ?? `fake upstream failure ${scenario.status}`,
        type: 'ServiceUnavailableError',
        code: scenario.status,
      });
    }
    if (scenario.kind === 'raw') return reply.code(200).type('application/json').send(scenario.body);
    reply.hijack();
    const res = reply.raw;
    res.on('close', () => {
      if (res.writableEnded) return;
      fake.earlyCloses++;
      signalClosed();
    });
    const answer = new Answer(body, scenario);
    fake.produced.push(answer.produced);
    if (body.stream === true) {
      if (await answer.stream(res, scenario, (bytes) => (fake.bytesStreamed += bytes))) fake.streamsFinished++;
      return;
    }
    if (scenario.kind === 'hold') await scenario.gate;
    if (!res.destroyed) answer.whole(res);
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  fake.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  return fake;
}

interface Token {
  id: number;
  piece: string;
  logprob: number;
}

/** One answer: the tokens it is made of and how to send them whole or streamed. */
class Answer {
  readonly produced: Produced;
  private readonly tokens: Token[];
  private readonly withIds: boolean;
  private readonly withLogprobs: boolean;
  private readonly isTool: boolean;
  private readonly id = `chatcmpl-fake-${Math.random().toString(36).slice(2)}`;
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(
    private readonly body: Record<string, unknown>,
    private readonly scenario: Scenario,
  ) {
    const text =
      scenario.kind === 'tool' ? scenario.arguments : scenario.kind === 'text' || scenario.kind === 'hold' ? (scenario.text ?? DEFAULT_TEXT) : DEFAULT_TEXT;
    this.isTool = scenario.kind === 'tool';
    const split = this.isTool ? (text.match(/.{1,4}/gs) ?? []) : pieces(text);
    this.tokens = split.map((piece, i) => ({ id: tokenId(piece, i), piece, logprob: logprob(i) }));
    this.withIds = body.return_token_ids === true && !(scenario.kind === 'text' && scenario.omitTokenIds);
    this.withLogprobs = body.logprobs === true;
    this.produced = {
      promptTokenIds: promptIds(body),
      completionTokenIds: this.tokens.map((t) => t.id),
      logprobs: this.tokens.map((t) => t.logprob),
    };
  }

  whole(res: ServerResponse): void {
    const name = this.scenario.kind === 'tool' ? this.scenario.name : '';
    const joined = this.tokens.map((t) => t.piece).join('');
    const message = this.isTool
      ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_fake_1', type: 'function', function: { name, arguments: joined } }] }
      : { role: 'assistant', content: joined, tool_calls: [] };
    const body = {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: String(this.body.model),
      choices: [
        {
          index: 0,
          message: { ...message, reasoning_content: null },
          logprobs: this.withLogprobs ? { content: this.tokens.map((t) => this.logprobEntry(t)) } : null,
          finish_reason: this.isTool ? 'tool_calls' : 'stop',
          stop_reason: null,
          ...(this.withIds ? { token_ids: this.produced.completionTokenIds } : {}),
        },
      ],
      usage: this.usage(),
      prompt_logprobs: null,
      ...(this.withIds ? { prompt_token_ids: this.produced.promptTokenIds } : {}),
      kv_transfer_params: null,
    };
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** True when it wrote the whole stream. */
  async stream(res: ServerResponse, scenario: Scenario, sent: (bytes: number) => void): Promise<boolean> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // resolves once the bytes are handed to the socket, so a later destroy() cannot swallow them
    const send = (data: unknown) => {
      const event = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
      return new Promise<void>((resolve) =>
        res.write(event, () => {
          sent(event.length);
          resolve();
        }),
      );
    };
    await send(
      this.chunk({ role: 'assistant', content: '' }, null, [], {
        ...(this.withIds ? { prompt_token_ids: this.produced.promptTokenIds } : {}),
      }),
    );
    const stopAfter = scenario.kind === 'die' || scenario.kind === 'error-event' ? scenario.chunks : Infinity;
    for (const [i, token] of this.tokens.entries()) {
      if (i === stopAfter) {
        if (scenario.kind === 'error-event') {
          await send({ error: { object: 'error', message: 'fake engine error', type: 'InternalServerError', code: 500 } });
          res.end();
        } else {
          res.destroy();
        }
        return false;
      }
      await send(this.chunk(this.deltaFor(token, i), null, [token]));
      if (i === 0 && scenario.kind === 'hold') await scenario.gate;
      if (i === 0 && scenario.kind === 'hang') return false;
      if (res.destroyed) return false;
    }
    await send(this.chunk({}, this.isTool ? 'tool_calls' : 'stop', []));
    if (this.body.stream_options && (this.body.stream_options as { include_usage?: boolean }).include_usage) {
      await send({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.body.model, choices: [], usage: this.usage() });
    }
    await send('[DONE]');
    res.end();
    return true;
  }

  private deltaFor(token: Token, i: number): Record<string, unknown> {
    if (!this.isTool) return { content: token.piece };
    const name = this.scenario.kind === 'tool' ? this.scenario.name : '';
    const head = i === 0 ? { id: 'call_fake_1', type: 'function', function: { name, arguments: token.piece } } : { function: { arguments: token.piece } };
    return { tool_calls: [{ index: 0, ...head }] };
  }

  private chunk(delta: Record<string, unknown>, finish: string | null, tokens: Token[], extra: Record<string, unknown> = {}) {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.body.model,
      choices: [
        {
          index: 0,
          delta,
          logprobs: this.withLogprobs && tokens.length > 0 ? { content: tokens.map((t) => this.logprobEntry(t)) } : null,
          finish_reason: finish,
          ...(finish ? { stop_reason: null } : {}),
          ...(this.withIds ? { token_ids: tokens.map((t) => t.id) } : {}),
        },
      ],
      ...extra,
    };
  }

  private logprobEntry(token: Token) {
    return { token: token.piece, logprob: token.logprob, bytes: [...Buffer.from(token.piece)], top_logprobs: [] };
  }

  private usage() {
    const prompt = this.produced.promptTokenIds.length;
    return { prompt_tokens: prompt, completion_tokens: this.tokens.length, total_tokens: prompt + this.tokens.length };
  }
}
