import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURN_LIMIT_UPSTREAM } from '../../../src/proxy/calls/turn-limit.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({ policyModels: ['policy'] });
});

afterAll(async () => {
  await fx.close();
});

/** A session whose harness has no turn limit of its own: the proxy serves `limit` policy calls. */
function limited(limit: number): ProxySession {
  const session = fx.session();
  session.maxPolicyCalls = limit;
  return session;
}

describe('max_turns enforced at the proxy', () => {
  it('serves the first max_turns policy calls from the model, then answers with a final message itself', async () => {
    const session = limited(2);
    const client = fx.client(session);
    const before = fx.fake.requests.length;
    for (let i = 0; i < 2; i++) await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    const past = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(fx.fake.requests.length - before).toBe(2);
    expect(past.choices[0]!.finish_reason).toBe('stop');
    expect(past.choices[0]!.message.content).toContain('limit of 2 model turns');
    expect(past.choices[0]!.message.tool_calls ?? []).toEqual([]);
    const calls = (await fx.sink.waitFor(fx.sink.calls.length)).filter((c) => c.rolloutId === session.rolloutId);
    expect(calls.map((c) => [c.seq, c.upstream === TURN_LIMIT_UPSTREAM, c.error === null])).toEqual([
      [1, false, true],
      [2, false, true],
      [3, true, false],
    ]);
    expect(calls[2]).toMatchObject({ status: 200, label: 'policy', promptTokenIds: null, completionTokenIds: null });
  });

  it('does not count helper calls, and leaves sessions without a limit alone', async () => {
    const session = limited(1);
    const client = fx.client(session);
    await client.chat.completions.create({ model: 'policy-small', messages: USER_MESSAGES });
    const served = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(served.choices[0]!.message.content).not.toContain('model turns');
    const free = fx.client(fx.session());
    for (let i = 0; i < 3; i++)
      expect((await free.chat.completions.create({ model: 'policy', messages: USER_MESSAGES })).choices[0]!.message.content).not.toContain('model turns');
  });

  it('streams the final message in each protocol, read back by the official clients', async () => {
    const chat = fx.client(limited(0));
    let text = '';
    for await (const chunk of await chat.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('limit of 0 model turns');

    const responses = fx.client(limited(0));
    const stream = await responses.responses.create({ model: 'policy', input: 'Say hello.', stream: true });
    let final: { status?: string; output?: unknown } | undefined;
    for await (const event of stream) if (event.type === 'response.completed') final = event.response;
    expect(final?.status).toBe('completed');
    expect(JSON.stringify(final?.output)).toContain('limit of 0 model turns');

    const session = limited(0);
    const anthropic = new Anthropic({ baseURL: `${fx.proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0 });
    const message = await anthropic.messages.stream({ model: 'policy', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello.' }] }).finalMessage();
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('limit of 0 model turns') })]);
  });
});
