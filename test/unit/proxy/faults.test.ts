import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { deferred, startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

describe('upstream faults', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('retries a 503 and records the call once, with status 200', async () => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'status', status: 503 }, { kind: 'status', status: 429, retryAfter: '0' });
    const completion = await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    expect(fx.fake.requests).toHaveLength(3);
    const calls = await fx.sink.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: 200, error: null, completionTokenIds: fx.fake.produced[0]?.completionTokenIds });
  });

  // The first attempt's request is dropped once sent (so a call waiting for its model holds none of
  // it); a retry prepares it again from the harness's bytes and must send the very same request.
  it.each([
    [
      'chat',
      '/chat/completions',
      {
        model: 'policy',
        messages: [{ role: 'system', content: 'Be brief.' }, ...USER_MESSAGES],
        tools: [{ type: 'function', function: { name: 'ls', parameters: { type: 'object' } } }],
      },
    ],
    [
      'responses',
      '/responses',
      {
        model: 'policy',
        instructions: 'Be brief.',
        input: [{ role: 'user', content: 'Say hello.' }],
        tools: [{ type: 'function', name: 'ls', parameters: { type: 'object' } }],
      },
    ],
    [
      'anthropic',
      '/messages',
      { model: 'policy', max_tokens: 64, system: 'Be brief.', messages: USER_MESSAGES, tools: [{ name: 'ls', input_schema: { type: 'object' } }] },
    ],
  ])('a retried %s call sends the upstream the same request again, and records the harness body', async (_, path, body) => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'status', status: 503 }, { kind: 'status', status: 502 });
    const session = fx.session();
    const res = await fetch(`${fx.proxy.url}/s/${session.secret}/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(fx.fake.requests).toHaveLength(3);
    const [first, ...retries] = fx.fake.requests.map((r) => r.body);
    expect(first).toMatchObject({ model: 'policy', return_token_ids: true });
    for (const retry of retries) expect(retry).toEqual(first);
    const [call] = await fx.sink.waitFor(1);
    expect(call?.status).toBe(200);
    expect(call?.request).toEqual(body);
    expect(call?.requestJson).toBe(JSON.stringify(body));
  });

  it('answers 502 for an upstream answer that is not JSON or is cut off, records why, and keeps serving', async () => {
    fx = await startFixture();
    const whole =
      '{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"token_ids":[5],"finish_reason":"stop"}],"prompt_token_ids":[1,2]}';
    fx.fake.script.push({ kind: 'raw', body: '<html>bad gateway</html>' }, { kind: 'raw', body: whole.slice(0, 90) }, { kind: 'raw', body: whole });
    const session = fx.session();
    const post = () =>
      fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES }),
      });
    for (const _ of [1, 2]) {
      const res = await post();
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/upstream answer unreadable/);
    }
    const res = await post();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    });
    const calls = await fx.sink.waitFor(3);
    expect(calls.map((c) => [c.status, c.error === null, c.missingTokenIds])).toEqual([
      [502, false, false],
      [502, false, false],
      [200, true, false],
    ]);
    expect([Array.from(calls[2]?.promptTokenIds ?? []), calls[2]?.completionTokenIds, calls[2]?.finishReason]).toEqual([[1, 2], [5], 'stop']);
  });

  it('passes on an answer whose structure reads but whose text does not parse, and the record says why it has no tokens', async () => {
    fx = await startFixture();
    // a number JSON does not allow, deep inside: the proxy cuts answers without reading every value
    fx.fake.script.push({
      kind: 'raw',
      body: '{"id":"c1","choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"total_tokens":1e},"prompt_token_ids":[1]}',
    });
    const session = fx.session();
    const res = await fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"id":"c1","choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"total_tokens":1e}}');
    const [call] = await fx.sink.waitFor(1);
    expect([call?.status, call?.missingTokenIds, call?.promptTokenIds, call?.completionTokenIds]).toEqual([200, true, null, null]);
    expect(call?.error).toMatch(/the upstream's answer is not a JSON object/);
  });

  it('gives up after 3 attempts and passes the status on, recorded with the error', async () => {
    fx = await startFixture();
    fx.fake.script.push(...[1, 2, 3].map(() => ({ kind: 'status' as const, status: 503, message: 'engine overloaded' })));
    const error = await fx
      .client(fx.session())
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect(fx.fake.requests).toHaveLength(3);
    const [call] = await fx.sink.waitFor(1);
    expect(call).toMatchObject({ status: 503, response: null, promptTokenIds: null, missingTokenIds: false });
    expect(call?.error).toContain('engine overloaded');
  });

  it('does not retry a 400 and passes the upstream message on', async () => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'status', status: 400, message: 'maximum context length is 4096 tokens' });
    const error = await fx
      .client(fx.session())
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('maximum context length');
    expect(fx.fake.requests).toHaveLength(1);
  });

  it('records an upstream that dies mid-stream, tells the client, and keeps serving', async () => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'die', chunks: 2 });
    const session = fx.session();
    const client = fx.client(session);
    const stream = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('Hello from');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('upstream stream failed');

    const [call] = await fx.sink.waitFor(1);
    expect(call?.status).toBe(200);
    expect(call?.error).toMatch(/^upstream stream failed: /);
    expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds.slice(0, 2));
    expect((call?.response as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Hello from');

    const after = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(after.choices[0]?.message.content).toBe('Hello from the fake upstream.');
  });

  it('turns an error event from the engine into an error for the client', async () => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'error-event', chunks: 1 });
    const stream = await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    const error = await (async () => {
      for await (const _ of stream);
    })().catch((e: unknown) => e);
    expect((error as Error).message).toContain('fake engine error');
    const [call] = await fx.sink.waitFor(1);
    expect(call?.error).toContain('fake engine error');
  });

  it('answers 502 when no upstream can be reached', async () => {
    fx = await startFixture();
    await fx.fake.close();
    const error = await fx
      .client(fx.session())
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const [call] = await fx.sink.waitFor(1);
    expect(call).toMatchObject({ status: 502, upstream: fx.fake.url });
    expect(call?.error).toContain('unreachable');
  });

  it('cancels the upstream request when the client goes away', async () => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'hang' });
    const controller = new AbortController();
    const stream = await fx
      .client(fx.session())
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true }, { signal: controller.signal });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) break;
    }
    controller.abort();
    await withTimeout(fx.fake.firstEarlyClose, 2_000, 'the fake upstream never saw its connection close');
    const [call] = await fx.sink.waitFor(1);
    expect(call?.error).toBe('client disconnected');
    expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds.slice(0, 1));
  });

  it('cancels a non-streaming upstream request when the client goes away, recorded as 499', async () => {
    fx = await startFixture();
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise });
    const controller = new AbortController();
    const pending = fx
      .client(fx.session())
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES }, { signal: controller.signal })
      .catch((e: unknown) => e);
    while (fx.fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await withTimeout(fx.fake.firstEarlyClose, 2_000, 'the fake upstream never saw its connection close');
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    gate.resolve();
    const [call] = await fx.sink.waitFor(1);
    expect(call).toMatchObject({ status: 499, error: 'client disconnected', response: null });
  });

  it('keeps answering when the sink fails, and logs the failure', async () => {
    fx = await startFixture();
    fx.sink.fail = true;
    const completion = await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    await fx.proxy.close();
    expect(fx.logger.lines.some((line) => line.includes('could not record call 1') && line.includes('sink is down'))).toBe(true);
  });
});

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms))]);
}
