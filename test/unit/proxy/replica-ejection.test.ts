import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../../src/proxy/server.js';
import { ReplicaHealth } from '../../../src/proxy/upstream/replica-health.js';
import { stickyIndex } from '../../../src/proxy/upstream/sticky-router.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startStalledListener } from '../../helpers/stalled-listener.js';
import { startFakeVllm } from './fake-vllm-upstream.js';
import { MemoryLogger, MemorySink, startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';
import OpenAI from 'openai';

const POLICY = { failuresToEject: 3, baseEjectionMs: 1_000, maxEjectionMs: 3_000 };

describe('replica health', () => {
  const setup = (count: number) => {
    let now = 10_000;
    const events: string[] = [];
    const health = new ReplicaHealth(
      count,
      POLICY,
      {
        ejected: (replica, forMs, failures) => events.push(`ejected ${replica} for ${forMs} after ${failures}`),
        restored: (replica) => events.push(`restored ${replica}`),
      },
      () => now,
    );
    return { health, events, advance: (ms: number) => (now += ms) };
  };

  it('ejects a replica after failures in a row, routes around it, tries it again later for twice as long, and takes it back when it answers', () => {
    const { health, events, advance } = setup(3);
    health.failed(1);
    health.failed(1);
    expect(health.pick(1)).toBe(1);
    health.failed(1);
    expect(events).toEqual(['ejected 1 for 1000 after 3']);
    // its rollouts go to the next replica in ring order, all of them to the same one
    expect(health.pick(1)).toBe(2);
    expect(health.pick(0)).toBe(0);
    expect(health.state(1)).toEqual({ consecutiveFailures: 3, inRouting: false, ejectedUntil: 11_000 });

    advance(1_000);
    expect(health.pick(1)).toBe(1);
    // tried again and failing at once: out again, for twice as long
    health.failed(1);
    expect(events.at(-1)).toBe('ejected 1 for 2000 after 4');
    advance(2_000);
    health.failed(1);
    advance(3_000);
    health.failed(1);
    expect(events.slice(-2)).toEqual(['ejected 1 for 3000 after 5', 'ejected 1 for 3000 after 6']);

    advance(3_000);
    health.answered(1);
    expect(events.at(-1)).toBe('restored 1');
    expect(health.state(1)).toEqual({ consecutiveFailures: 0, inRouting: true, ejectedUntil: 0 });
    // and the count starts over
    health.failed(1);
    health.failed(1);
    expect(health.pick(1)).toBe(1);
  });

  it('counts failures in a row only: an answer between them starts the count again', () => {
    const { health, events } = setup(2);
    health.failed(0);
    health.failed(0);
    health.answered(0);
    health.failed(0);
    health.failed(0);
    expect(events).toEqual([]);
    expect(health.pick(0)).toBe(0);
  });

  it('never ejects the last replica in routing, nor a lone one', () => {
    const two = setup(2);
    for (let i = 0; i < 3; i++) two.health.failed(0);
    for (let i = 0; i < 5; i++) two.health.failed(1);
    expect(two.events).toEqual(['ejected 0 for 1000 after 3']);
    expect(two.health.pick(0)).toBe(1);

    const one = setup(1);
    for (let i = 0; i < 10; i++) one.health.failed(0);
    expect(one.events).toEqual([]);
    expect(one.health.pick(0)).toBe(0);
  });
});

describe('a failing replica behind the proxy', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  /** A session whose rollout sticks to replica `index` of 2. */
  const sessionOn = (index: number): ProxySession => {
    for (;;) {
      const session = fx.session();
      if (stickyIndex(session.rolloutId, 2) === index) return session;
    }
  };

  interface Status {
    upstreams: { url: string; in_routing: boolean; consecutive_failures: number; ejected_until?: string }[];
  }
  const status = async (): Promise<Status> => (await fetch(`${fx.proxy.url}/control/status`)).json() as Promise<Status>;

  it('answers every call from the other replica, stops asking the failing one after 3 failures, and goes back to it once it answers', async () => {
    fx = await startFixture({ upstreams: 2, ejection: { baseEjectionMs: 300 } });
    const [failing, healthy] = fx.fakes as [(typeof fx.fakes)[0], (typeof fx.fakes)[0]];
    failing.script.push(...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 500 })));
    const session = sessionOn(0);
    const client = fx.client(session);

    // each call is answered: its 500 is retried at the other replica
    for (let i = 0; i < 5; i++) {
      const completion = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
      expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    }
    // after the third failure the failing replica was not asked again
    expect(failing.requests).toHaveLength(3);
    expect(healthy.requests).toHaveLength(5);
    const calls = await fx.sink.waitFor(5);
    expect(calls.map((c) => [c.status, c.upstream])).toEqual(Array.from({ length: 5 }, () => [200, healthy.url]));
    const out = (await status()).upstreams;
    expect(out).toMatchObject([
      { url: failing.url, in_routing: false, consecutive_failures: 3 },
      { url: healthy.url, in_routing: true, consecutive_failures: 0 },
    ]);
    expect(Date.parse(out[0]!.ejected_until!)).toBeGreaterThan(Date.now());
    expect(fx.logger.lines).toEqual([
      expect.stringMatching(new RegExp(`upstream ${failing.url} failed 3 times in a row; its rollouts' calls go to the next replica for 0\\.3 s`)),
    ]);

    // the ejection is over and the replica answers again (its script is used up): the rollout is back on it
    await new Promise((resolve) => setTimeout(resolve, 350));
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(failing.requests).toHaveLength(5);
    expect(healthy.requests).toHaveLength(5);
    expect((await status()).upstreams[0]).toMatchObject({ in_routing: true, consecutive_failures: 0 });
    expect(fx.logger.lines.at(-1)).toContain(`upstream ${failing.url} answers again`);

    const metrics = await (await fetch(`${fx.proxy.url}/metrics`)).text();
    expect(metrics).toContain(`openforge_proxy_upstream_ejections_total{upstream="${failing.url}"} 1`);
    expect(metrics).toContain(`openforge_proxy_upstream_in_routing{upstream="${failing.url}"} 1`);
    expect(metrics).toContain(`openforge_proxy_upstream_retries_total{upstream="${failing.url}",reason="500"} 3`);
    // each call under the replica that answered it
    expect(metrics).toContain(`openforge_proxy_upstream_time_to_first_byte_seconds_count{upstream="${healthy.url}",stream="false"} 5`);
    expect(metrics).toContain(`openforge_proxy_upstream_time_to_first_byte_seconds_count{upstream="${failing.url}",stream="false"} 2`);
  });

  it('asks a busy replica (429) again instead of moving the rollout', async () => {
    fx = await startFixture({ upstreams: 2 });
    const [busy, other] = fx.fakes as [(typeof fx.fakes)[0], (typeof fx.fakes)[0]];
    busy.script.push({ kind: 'status', status: 429, retryAfter: '0' }, { kind: 'status', status: 429, retryAfter: '0' });
    await fx.client(sessionOn(0)).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(busy.requests).toHaveLength(3);
    expect(other.requests).toHaveLength(0);
    expect((await status()).upstreams[0]).toMatchObject({ in_routing: true, consecutive_failures: 0 });
  });

  it('stops waiting for the connect timeout of a replica that never accepts', async () => {
    let n = 0;
    while (stickyIndex(`rollout-${n}`, 2) !== 0) n++;
    const session: ProxySession = { rolloutId: `rollout-${n}`, runId: 'run-1', taskId: '', secret: 'on-the-stalled-one' };
    const stalled = await startStalledListener();
    const alive = await startFakeVllm();
    const proxy = await startProxy({
      upstreams: [
        { url: stalled.url, kind: 'vllm' },
        { url: alive.url, kind: 'vllm' },
      ],
      sessions: { bySecret: (secret) => (secret === 'on-the-stalled-one' ? session : undefined) },
      sink: new MemorySink(),
      logger: new MemoryLogger(),
      retry: { baseDelayMs: 5 },
      upstreamTimeouts: { connectMs: 200 },
    });
    try {
      const client = new OpenAI({ baseURL: `${proxy.url}/s/${session.secret}/v1`, apiKey: 'x', maxRetries: 0 });
      const took: number[] = [];
      for (let i = 0; i < 6; i++) {
        const started = Date.now();
        await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
        took.push(Date.now() - started);
      }
      // three calls wait out the connect timeout, then move on; the rest go to the live replica at once
      expect(took.slice(0, 3).every((ms) => ms >= 200)).toBe(true);
      expect(took.slice(3).every((ms) => ms < 150)).toBe(true);
      expect(alive.requests).toHaveLength(6);
    } finally {
      await proxy.close();
      await alive.close();
      await stalled.close();
    }
  });
});
