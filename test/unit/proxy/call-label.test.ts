import { afterEach, describe, expect, it } from 'vitest';
import { callLabel } from '../../../src/proxy/calls/call-label.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

describe('callLabel', () => {
  it('labels everything policy when no policy models are configured', () => {
    expect(callLabel('policy', 'claude-haiku', undefined)).toBe('policy');
    expect(callLabel('policy', '', undefined)).toBe('policy');
  });

  it('labels a model outside the policy list helper', () => {
    const policy = ['qwen3-8b', 'policy'];
    expect(callLabel('policy', 'qwen3-8b', policy)).toBe('policy');
    expect(callLabel('policy', 'policy', policy)).toBe('policy');
    expect(callLabel('policy', 'claude-3-5-haiku', policy)).toBe('helper');
    expect(callLabel('policy', 'Qwen3-8B', policy)).toBe('helper'); // model names are exact
  });

  it('never overrides a protocol label such as count_tokens', () => {
    expect(callLabel('count_tokens', 'qwen3-8b', ['qwen3-8b'])).toBe('count_tokens');
    expect(callLabel('count_tokens', 'haiku', ['qwen3-8b'])).toBe('count_tokens');
    expect(callLabel('count_tokens', 'haiku', undefined)).toBe('count_tokens');
    expect(callLabel('helper', 'qwen3-8b', ['qwen3-8b'])).toBe('helper');
  });
});

describe('labels on recorded calls', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('records calls for other models as helper calls when policy models are set', async () => {
    fx = await startFixture({ policyModels: ['policy'] });
    const client = fx.client(fx.session());
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    await client.chat.completions.create({ model: 'small-fast', messages: USER_MESSAGES, stream: true }).then(async (s) => {
      for await (const _ of s);
    });
    const calls = await fx.sink.waitFor(2);
    expect(calls.map((c) => [c.seq, c.model, c.label])).toEqual([
      [1, 'policy', 'policy'],
      [2, 'small-fast', 'helper'],
    ]);
  });

  it('records every call as policy without a policy model list', async () => {
    fx = await startFixture();
    await fx.client(fx.session()).chat.completions.create({ model: 'small-fast', messages: USER_MESSAGES });
    const [call] = await fx.sink.waitFor(1);
    expect(call?.label).toBe('policy');
  });
});
