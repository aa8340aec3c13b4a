import { afterEach, describe, expect, it } from 'vitest';
import { stickyIndex } from '../../../src/proxy/upstream/sticky-router.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

describe('several upstreams', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('keeps every rollout on one upstream and spreads rollouts over both', async () => {
    fx = await startFixture({ upstreams: 2 });
    const sessions = Array.from({ length: 12 }, () => fx.session());
    for (let round = 0; round < 3; round++) {
      await Promise.all(sessions.map((s) => fx.client(s).chat.completions.create({ model: 'policy', messages: USER_MESSAGES })));
    }
    const calls = await fx.sink.waitFor(36);
    for (const session of sessions) {
      const upstreams = new Set(calls.filter((c) => c.rolloutId === session.rolloutId).map((c) => c.upstream));
      expect(upstreams.size).toBe(1);
      const [upstream] = upstreams;
      const fake = fx.fakes.find((f) => f.url === upstream);
      const seen = fake?.requests.filter((r) => r.headers['x-openforge-rollout'] === session.rolloutId);
      expect(seen).toHaveLength(3);
    }
    expect(fx.fakes.every((f) => f.requests.length > 0)).toBe(true);
  });

  it('moves to the other upstream when its own cannot be reached', async () => {
    fx = await startFixture({ upstreams: 2 });
    const [dead, alive] = fx.fakes;
    await dead!.close();
    const sessions = Array.from({ length: 8 }, () => fx.session());
    expect(sessions.some((s) => stickyIndex(s.rolloutId, 2) === 0)).toBe(true);
    for (const session of sessions) {
      const completion = await fx.client(session).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
      expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    }
    const calls = await fx.sink.waitFor(8);
    expect(calls.every((c) => c.upstream === alive!.url && c.status === 200)).toBe(true);
  });
});
