import { afterEach, describe, expect, it } from 'vitest';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

describe('what the upstream receives', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('asks for token ids and logprobs, and usage when streaming, with the rollout headers', async () => {
    fx = await startFixture();
    const session = fx.session();
    const client = fx.client(session);
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    const stream = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    for await (const _ of stream);

    const [whole, streamed] = fx.fake.requests;
    expect(whole?.body).toMatchObject({ return_token_ids: true, logprobs: true });
    expect(whole?.body.stream_options).toBeUndefined();
    expect(streamed?.body).toMatchObject({ return_token_ids: true, logprobs: true, stream: true, stream_options: { include_usage: true } });
    for (const request of [whole, streamed]) {
      expect(request?.headers['x-openforge-rollout']).toBe(session.rolloutId);
      expect(request?.headers['x-openforge-task']).toBe(session.taskId);
      // the harness's credential (here the session secret path + SDK key) never goes upstream
      expect(request?.headers.authorization).toBeUndefined();
    }
  });

  it('forces the sampling settings, capping max tokens', async () => {
    fx = await startFixture({ sampling: { model: 'served-policy', temperature: 0.7, maxTokens: 256 } });
    const client = fx.client(fx.session());
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, temperature: 0 });
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, max_tokens: 10_000 });
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, max_completion_tokens: 64 });
    const bodies = fx.fake.requests.map((r) => r.body);
    expect(bodies.map((b) => [b.model, b.temperature])).toEqual([
      ['served-policy', 0.7],
      ['served-policy', 0.7],
      ['served-policy', 0.7],
    ]);
    expect(bodies.map((b) => [b.max_tokens, b.max_completion_tokens])).toEqual([
      [256, undefined],
      [256, undefined],
      [undefined, 64],
    ]);
    // the record keeps the model name the harness asked for
    const calls = await fx.sink.waitFor(3);
    expect(calls.map((c) => c.model)).toEqual(['policy', 'policy', 'policy']);
  });

  it("passes the harness's own fields on exactly, whatever its JSON looks like", async () => {
    fx = await startFixture({ sampling: { model: 'served-policy', temperature: 0.7, maxTokens: 256 } });
    const session = fx.session();
    // pretty-printed, an escaped key, a duplicated key, a field the proxy does not know, awkward strings
    const raw = `{
      "mod\\u0065l": "policy",
      "temperature": 0, "temperature": 1,
      "messages": [ { "role": "user", "content": "a \\"quote\\", braces }{ ][, é 日本 🚀, a \\\\ backslash" } ],
      "chat_template_kwargs": { "enable_thinking": false },
      "max_tokens": 10000
    }`;
    const sent = async (body: Buffer) => {
      const res = await fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Uint8Array(body),
      });
      expect(res.status).toBe(200);
      return fx.fake.requests.at(-1)?.body;
    };
    const forced = { model: 'served-policy', temperature: 0.7, max_tokens: 256, return_token_ids: true, logprobs: true };
    expect(await sent(Buffer.from(raw))).toEqual({ ...JSON.parse(raw), ...forced });
    // a field the proxy leaves alone reaches the upstream as the harness wrote it: a seed past 2^53
    // would lose digits through JSON.parse and JSON.stringify, 1.0 would become 1
    await sent(Buffer.from('{"model":"policy","messages":[{"role":"user","content":"hi"}],"seed": 12345678901234567891,"top_p":1.0}'));
    expect(fx.fake.requests.at(-1)?.text).toContain('"seed": 12345678901234567891,"top_p":1.0}');
    // bytes that are not UTF-8 reach the parsed request as U+FFFD: that is what goes upstream too
    const invalid = Buffer.concat([
      Buffer.from('{"model":"policy","messages":[{"role":"user","content":"bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}]}'),
    ]);
    const received = await sent(invalid);
    expect(received?.messages).toEqual([{ role: 'user', content: 'bad \ufffd\ufffd' }]);
    expect(received).toMatchObject(forced);
  });

  it('sends the upstream API key as Bearer and records it nowhere', async () => {
    const apiKey = 'sk-upstream-very-secret-key';
    fx = await startFixture({ upstreamApiKey: apiKey });
    const session = fx.session();
    const stream = await fx.client(session).chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    for await (const _ of stream);
    expect(fx.fake.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
    const [call] = await fx.sink.waitFor(1);
    const recorded = JSON.stringify(call);
    expect(recorded).not.toContain(apiKey);
    expect(recorded).not.toContain(session.secret);
  });
});
