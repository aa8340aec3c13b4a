import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

const BASH_TOOL = {
  type: 'function' as const,
  function: {
    name: 'bash',
    description: 'Run a shell command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
};

describe('chat completions through the official OpenAI SDK', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('answers a non-streaming call and records the upstream token ids', async () => {
    const session = fx.session();
    const completion = await fx.client(session).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });

    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const [call] = await fx.sink.waitFor(1);
    const produced = fx.fake.produced[0];
    expect(call).toMatchObject({
      rolloutId: session.rolloutId,
      seq: 1,
      label: 'policy',
      protocol: 'chat',
      model: 'policy',
      stream: false,
      status: 200,
      error: null,
      finishReason: 'stop',
      upstream: fx.fake.url,
      missingTokenIds: false,
    });
    expect(call?.request).toEqual({ model: 'policy', messages: USER_MESSAGES });
    expect(call?.response).toEqual(JSON.parse(JSON.stringify(completion)));
    expect(call?.promptTokenIds && Array.from(call.promptTokenIds)).toEqual(produced?.promptTokenIds);
    expect(call?.completionTokenIds).toEqual(produced?.completionTokenIds);
    expect(call?.logprobs).toEqual(produced?.logprobs);
    expect(call?.ttfbMs).toBeGreaterThan(0);
    expect(call?.durationMs).toBeGreaterThanOrEqual(call?.ttfbMs ?? 0);
  });

  it('streams a tool call that the SDK assembles, and records the assembled completion', async () => {
    const session = fx.session();
    const args = JSON.stringify({ command: 'ls -la /workspace && cat notes.txt' });
    fx.fake.script.push({ kind: 'tool', name: 'bash', arguments: args });
    const runner = fx.client(session).chat.completions.stream({
      model: 'policy',
      messages: USER_MESSAGES,
      tools: [BASH_TOOL],
    });
    const final = await runner.finalChatCompletion();

    const toolCall = final.choices[0]?.message.tool_calls?.[0];
    expect(toolCall?.type).toBe('function');
    expect(toolCall?.type === 'function' && toolCall.function).toMatchObject({ name: 'bash', arguments: args });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');

    const [call] = await fx.sink.waitFor(1);
    const produced = fx.fake.produced[0];
    expect(call?.stream).toBe(true);
    expect(call?.finishReason).toBe('tool_calls');
    expect(call?.promptTokenIds && Array.from(call.promptTokenIds)).toEqual(produced?.promptTokenIds);
    expect(call?.completionTokenIds).toEqual(produced?.completionTokenIds);
    expect(call?.completionTokenIds?.length).toBeGreaterThan(3);
    expect(call?.logprobs).toEqual(produced?.logprobs);
    expect(call?.missingTokenIds).toBe(false);
    expect(call?.response).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', tool_calls: [{ id: 'call_fake_1', type: 'function', function: { name: 'bash', arguments: args } }] },
        },
      ],
      usage: { completion_tokens: produced?.completionTokenIds.length },
    });
  });

  it('streams text chunk by chunk and numbers the calls of a session 1, 2, 3', async () => {
    const session = fx.session();
    const client = fx.client(session);
    for (let i = 0; i < 3; i++) {
      const stream = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Hello from the fake upstream.');
    }
    const calls = await fx.sink.waitFor(3);
    expect(calls.map((c) => c.seq)).toEqual([1, 2, 3]);
    expect(calls.map((c) => c.completionTokenIds)).toEqual(fx.fake.produced.map((p) => p.completionTokenIds));
    expect((calls[0]?.response as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Hello from the fake upstream.');
  });

  it('never shows engine fields to the client, whole or streamed', async () => {
    const session = fx.session();
    const client = fx.client(session);
    const whole = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES }).asResponse();
    const wholeText = await whole.text();
    const streamed = await client.chat.completions
      .create({ model: 'policy', messages: USER_MESSAGES, stream: true, stream_options: { include_usage: true } })
      .asResponse();
    const streamText = await streamed.text();
    for (const text of [wholeText, streamText]) {
      for (const field of ['prompt_token_ids', 'token_ids', 'prompt_logprobs', 'kv_transfer_params', 'stop_reason']) {
        expect(text).not.toContain(`"${field}"`);
      }
    }
    // the fake did send them, so the test above can fail
    expect(fx.fake.requests.every((r) => r.body.return_token_ids === true)).toBe(true);
  });

  it('strips logprobs the client did not ask for and keeps them when asked', async () => {
    const session = fx.session();
    const client = fx.client(session);
    const without = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(without.choices[0]?.logprobs ?? null).toBeNull();
    const withLogprobs = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, logprobs: true });
    expect(withLogprobs.choices[0]?.logprobs?.content?.map((l) => l.logprob)).toEqual(fx.fake.produced[1]?.logprobs);

    const streamed = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    const streamedWith = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true, logprobs: true });
    const seen = { without: [] as number[], with: [] as number[] };
    for await (const chunk of streamed) for (const l of chunk.choices[0]?.logprobs?.content ?? []) seen.without.push(l.logprob);
    for await (const chunk of streamedWith) for (const l of chunk.choices[0]?.logprobs?.content ?? []) seen.with.push(l.logprob);
    expect(seen.without).toEqual([]);
    expect(seen.with).toEqual(fx.fake.produced[3]?.logprobs);

    // logprobs are recorded for training whether or not the client asked
    const calls = await fx.sink.waitFor(4);
    expect(calls.map((c) => c.logprobs)).toEqual(fx.fake.produced.map((p) => p.logprobs));
  });

  it('passes the usage chunk only to clients that asked for it', async () => {
    const session = fx.session();
    const client = fx.client(session);
    const plain = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    const chunksPlain = [];
    for await (const chunk of plain) chunksPlain.push(chunk);
    expect(chunksPlain.some((c) => c.usage)).toBe(false);
    expect(chunksPlain.every((c) => c.choices.length > 0)).toBe(true);

    const withUsage = await client.chat.completions.create({
      model: 'policy',
      messages: USER_MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunksUsage = [];
    for await (const chunk of withUsage) chunksUsage.push(chunk);
    const last = chunksUsage.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBe(fx.fake.produced[1]?.completionTokenIds.length);

    // the upstream always streams usage; the record keeps it either way
    const calls = await fx.sink.waitFor(2);
    const completionTokens = fx.fake.produced.map((p) => p.completionTokenIds.length);
    expect(calls.map((c) => (c.response as { usage: { completion_tokens: number } }).usage.completion_tokens)).toEqual(completionTokens);
  });

  it('records the request as the harness sent it, not as forwarded', async () => {
    const session = fx.session();
    await fx
      .client(session)
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true })
      .then(async (s) => {
        for await (const _ of s);
      });
    const [call] = await fx.sink.waitFor(1);
    expect(call?.request).toEqual({ model: 'policy', messages: USER_MESSAGES, stream: true });
    expect(fx.fake.requests[0]?.body).toMatchObject({ return_token_ids: true, logprobs: true, stream_options: { include_usage: true } });
  });
});
