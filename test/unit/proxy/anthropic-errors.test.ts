import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startFixture, type Fixture } from './proxy-fixture.js';

interface AnthropicError {
  type: string;
  error: { type: string; message: string };
}

const HELLO = [{ role: 'user' as const, content: 'hello' }];

describe('Anthropic errors', () => {
  let fx: Fixture;
  let session: ProxySession;
  afterEach(async () => {
    await fx.close();
  });

  async function start(options: Parameters<typeof startFixture>[0] = {}): Promise<Anthropic> {
    fx = await startFixture(options);
    session = fx.session();
    return new Anthropic({ baseURL: `${fx.proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0 });
  }

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${fx.proxy.url}/s/${session.secret}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('answers invalid requests with a 400 in Anthropic shape naming the field, without calling the upstream', async () => {
    await start();
    const cases: [unknown, RegExp][] = [
      [{ model: 'm', messages: HELLO }, /^max_tokens: Field required$/],
      [{ model: 'm', max_tokens: 10, messages: 'hello' }, /^messages: .*expected array/],
      [{ model: 'm', max_tokens: 10, messages: [] }, /^messages: /],
      [{ max_tokens: 10, messages: HELLO }, /^model: Field required$/],
      [{ model: 'm', max_tokens: 10, messages: [{ role: 'tool', content: 'x' }] }, /^messages\.0\.role: /],
      [
        {
          model: 'm',
          max_tokens: 10,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'a' },
                { type: 'video', url: 'v' },
              ],
            },
          ],
        },
        /^messages\.0\.content\.1\.type: .*'text'/,
      ],
      [{ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 42 }] }, /^messages\.0\.content: .*expected string or array/],
      [
        { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }] },
        /^messages\.0\.content\.0\.source\.data: Field required$/,
      ],
      [
        { model: 'm', max_tokens: 10, messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }] },
        /^messages\.0\.content\.0\.type: a tool_result block cannot appear in assistant messages$/,
      ],
      [{ model: 'm', max_tokens: 10, messages: HELLO, tools: [{ name: 'Bash' }] }, /^tools\.0\.input_schema: Field required$/],
      [{ model: 'm', max_tokens: 10, messages: HELLO, tool_choice: { type: 'tool' } }, /^tool_choice\.name: /],
      [{ model: 'm', max_tokens: 10, messages: HELLO, temperature: 1.5 }, /^temperature: /],
    ];
    for (const [body, message] of cases) {
      const res = await post('/v1/messages', JSON.stringify(body));
      expect(res.status).toBe(400);
      const error = (await res.json()) as AnthropicError;
      expect(error.type).toBe('error');
      expect(error.error.type).toBe('invalid_request_error');
      expect(error.error.message).toMatch(message);
    }
    expect(fx.fake.requests).toHaveLength(0);
    const calls = await fx.sink.waitFor(cases.length);
    expect(calls.every((c) => c.protocol === 'anthropic' && c.status === 400 && c.error !== null)).toBe(true);
  });

  it('raises BadRequestError in the SDK for a request it lets through', async () => {
    const client = await start();
    const error = await client.messages.create({ model: 'm', max_tokens: 0, messages: HELLO }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect((error as Error).message).toContain('max_tokens');
  });

  it('answers malformed JSON, unknown routes and oversized bodies in Anthropic shape, and other routes in OpenAI shape', async () => {
    await start({ bodyLimitBytes: 4096 });
    const malformed = await post('/v1/messages?beta=true', '{"model": ');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^malformed JSON body/) },
    });

    const unknown = await post('/v1/messages/batches', '{}');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('/s/<secret>/v1/messages/batches') },
    });

    const huge = { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x'.repeat(8192) }] };
    const tooLarge = await post('/v1/messages', JSON.stringify(huge));
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });

    const unauthenticated = await fetch(`${fx.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const chatRoute = await post('/v1/chat/nothing', '{}');
    expect(await chatRoute.json()).toMatchObject({ error: { type: 'not_found_error', code: 'unknown_route' } });
  });

  it('passes upstream failures on with their status and the matching Anthropic error type', async () => {
    const client = await start({ retry: { attempts: 1 } });
    const cases: [number, abstract new (...args: never[]) => Error, string][] = [
      [500, Anthropic.InternalServerError, 'api_error'],
      [529, Anthropic.OverloadedError, 'overloaded_error'],
      [429, Anthropic.RateLimitError, 'rate_limit_error'],
      [400, Anthropic.BadRequestError, 'invalid_request_error'],
    ];
    for (const [status, errorClass, type] of cases) {
      fx.fake.script.push({ kind: 'status', status, message: `engine says ${status}` });
      const error = await client.messages.create({ model: 'm', max_tokens: 8, messages: HELLO }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(errorClass);
      const apiError = error as InstanceType<typeof Anthropic.APIError>;
      expect(apiError.status).toBe(status);
      expect(apiError.error).toEqual({ type: 'error', error: { type, message: `upstream answered ${status}: engine says ${status}` } });
    }
    const calls = await fx.sink.waitFor(cases.length);
    expect(calls.map((c) => c.status)).toEqual(cases.map(([status]) => status));
  });

  it('errors the SDK stream (not a hang) when the upstream dies mid-stream, records the failure, keeps serving', async () => {
    const client = await start();
    fx.fake.script.push({ kind: 'die', chunks: 2 });
    const stream = client.messages.stream({ model: 'm', max_tokens: 8, messages: HELLO });
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const error = await Promise.race([
      stream.finalMessage().then(
        () => new Error('the stream resolved'),
        (e: unknown) => e,
      ),
      new Promise((resolve) => setTimeout(() => resolve(new Error('the stream hung')), 5_000)),
    ]);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect((error as Error).message).toContain('upstream stream failed');
    expect(texts.join('')).toBe('Hello from');

    const [call] = await fx.sink.waitFor(1);
    expect(call?.error).toMatch(/^upstream stream failed: /);
    expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds.slice(0, 2));
    expect(call?.response).toMatchObject({ content: [{ type: 'text', text: 'Hello from' }], stop_reason: null });

    const after = await client.messages.create({ model: 'm', max_tokens: 8, messages: HELLO });
    expect(after.content).toEqual([{ type: 'text', text: 'Hello from the fake upstream.' }]);
  });

  it("turns the engine's error event into an SDK error", async () => {
    const client = await start();
    fx.fake.script.push({ kind: 'error-event', chunks: 1 });
    const error = await client.messages
      .stream({ model: 'm', max_tokens: 8, messages: HELLO })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain('fake engine error');
  });
});
