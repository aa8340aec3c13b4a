import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { startProxy } from '../../../src/proxy/server.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import { MemoryLogger, MemorySink } from './proxy-fixture.js';

/** TEST FAKE — an upstream that serves only vLLM's `POST /tokenize` (at the root, as vLLM does). */
async function startTokenizer(answer: { status: number; body: unknown }) {
  const seen: { url: string; body: Record<string, unknown> }[] = [];
  const app: FastifyInstance = Fastify({ logger: false });
  app.post('/tokenize', async (request, reply) => {
    seen.push({ url: request.url, body: request.body as Record<string, unknown> });
    return reply.code(answer.status).send(answer.body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`, seen, close: () => app.close() };
}

const SESSION = { rolloutId: 'r-count', runId: 'run', taskId: 'task', secret: 'count-secret' };

const REQUEST: Anthropic.MessageCountTokensParams = {
  model: 'claude-haiku-4-5',
  system: 'You are terse.',
  tools: [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
  messages: [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_call_9', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_call_9', content: 'a.txt' }] },
  ],
};

describe('Anthropic count_tokens', () => {
  let tokenizer: Awaited<ReturnType<typeof startTokenizer>>;
  let proxy: RunningProxy;
  afterEach(async () => {
    await proxy.close();
    await tokenizer.close();
  });

  async function start(answer: { status: number; body: unknown }) {
    tokenizer = await startTokenizer(answer);
    const sink = new MemorySink();
    proxy = await startProxy({
      upstreams: [{ url: tokenizer.url, kind: 'vllm' }],
      sessions: { bySecret: (s) => (s === SESSION.secret ? SESSION : undefined) },
      sink,
      logger: new MemoryLogger(),
      retry: { attempts: 1 },
    });
    const client = new Anthropic({ baseURL: `${proxy.url}/s/${SESSION.secret}`, apiKey: 'x', maxRetries: 0 });
    return { client, sink };
  }

  it("counts exactly with the upstream's /tokenize, sending the translated prompt, and records no token ids", async () => {
    const { client, sink } = await start({ status: 200, body: { count: 1234, max_model_len: 32768, tokens: [1, 2, 3] } });
    const counted = await client.beta.messages.countTokens(REQUEST);
    expect(counted).toEqual({ input_tokens: 1234, openforge_token_count: 'exact' });

    expect(tokenizer.seen).toHaveLength(1);
    expect(tokenizer.seen[0]?.url).toBe('/tokenize');
    expect(tokenizer.seen[0]?.body).toEqual({
      add_generation_prompt: true,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'List the files.' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }] },
        { role: 'tool', tool_call_id: 'call_9', content: 'a.txt' },
      ],
      tools: [{ type: 'function', function: { name: 'Bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }],
    });

    const [call] = await sink.waitFor(1);
    expect(call).toMatchObject({
      label: 'count_tokens',
      protocol: 'anthropic',
      model: 'claude-haiku-4-5',
      stream: false,
      status: 200,
      error: null,
      request: REQUEST,
      response: { input_tokens: 1234 },
      promptTokenIds: null,
      completionTokenIds: null,
      missingTokenIds: false,
      upstream: tokenizer.url,
    });
  });

  it('falls back to a labelled estimate when the upstream refuses to tokenize', async () => {
    const { client } = await start({ status: 400, body: { object: 'error', message: 'no chat template' } });
    const counted = await client.messages.countTokens(REQUEST);
    expect(counted).toMatchObject({ openforge_token_count: 'estimate' });
    expect(counted.input_tokens).toBeGreaterThan(10);
    expect(tokenizer.seen).toHaveLength(1);
  });

  it('validates the request without asking for max_tokens', async () => {
    const { client, sink } = await start({ status: 200, body: { count: 1 } });
    const error = await client.messages
      .countTokens({ model: 'm', messages: [{ role: 'user', content: [{ type: 'bogus' }] }] } as unknown as Anthropic.MessageCountTokensParams)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('messages.0.content.0.type');
    expect(tokenizer.seen).toHaveLength(0);
    const [call] = await sink.waitFor(1);
    expect(call).toMatchObject({ status: 400, label: 'count_tokens', model: 'm', response: null });
  });
});
