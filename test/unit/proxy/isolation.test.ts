import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startFixture, type Fixture } from './proxy-fixture.js';

/**
 * One rollout's secret can neither read nor write another's calls. The proxy has no read API, so
 * "read" means: nothing under a secret answers with recorded data. Precedence when a request
 * carries two secrets: the /s/<secret> path wins, then Bearer, then x-api-key — the call belongs
 * to exactly that one session and the other is never touched.
 */
describe('rollout isolation', () => {
  let fx: Fixture;
  let a: ProxySession;
  let b: ProxySession;
  beforeEach(async () => {
    fx = await startFixture();
    a = fx.session('rollout-a');
    b = fx.session('rollout-b');
  });
  afterEach(async () => {
    await fx.close();
  });

  const post = (path: string, headers: Record<string, string>, content: string) =>
    fetch(`${fx.proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'policy', messages: [{ role: 'user', content }] }),
    });
  const contentOf = (request: unknown) => (request as { messages: { content: string }[] }).messages[0]?.content;

  it('records a call under the secret it was made with, and only there', async () => {
    const sends = [];
    for (let i = 0; i < 10; i++) {
      sends.push(post(`/s/${a.secret}/v1/chat/completions`, {}, `a-${i}`));
      sends.push(post('/v1/chat/completions', { authorization: `Bearer ${b.secret}` }, `b-${i}`));
    }
    expect((await Promise.all(sends)).map((r) => r.status)).toEqual(Array(20).fill(200));
    const calls = await fx.sink.waitFor(20);
    for (const [session, prefix] of [
      [a, 'a-'],
      [b, 'b-'],
    ] as const) {
      const mine = calls.filter((c) => c.rolloutId === session.rolloutId);
      expect(mine).toHaveLength(10);
      expect(mine.every((c) => contentOf(c.request)?.startsWith(prefix))).toBe(true);
      expect(mine.map((c) => c.seq).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }
    // the upstream saw each call attributed to its own rollout
    for (const seen of fx.fake.requests) {
      const rollout = contentOf(seen.body)?.startsWith('a-') ? a.rolloutId : b.rolloutId;
      expect(seen.headers['x-openforge-rollout']).toBe(rollout);
    }
  });

  it('attributes a request carrying two valid secrets to the path secret alone (then Bearer over x-api-key)', async () => {
    expect((await post(`/s/${a.secret}/v1/chat/completions`, { authorization: `Bearer ${b.secret}` }, 'path-a-bearer-b')).status).toBe(200);
    expect((await post(`/s/${a.secret}/v1/chat/completions`, { 'x-api-key': b.secret }, 'path-a-key-b')).status).toBe(200);
    expect((await post('/v1/chat/completions', { authorization: `Bearer ${a.secret}`, 'x-api-key': b.secret }, 'bearer-a-key-b')).status).toBe(200);
    expect((await post(`/s/${b.secret}/v1/chat/completions`, {}, 'b-own')).status).toBe(200);
    const calls = await fx.sink.waitFor(4);
    expect(calls.map((c) => [c.rolloutId, c.seq, contentOf(c.request)])).toEqual([
      [a.rolloutId, 1, 'path-a-bearer-b'],
      [a.rolloutId, 2, 'path-a-key-b'],
      [a.rolloutId, 3, 'bearer-a-key-b'],
      // b's numbering was never touched by the requests that merely mentioned its secret
      [b.rolloutId, 1, 'b-own'],
    ]);
    // and the record of a call keeps no header, so b's secret is nowhere in a's records
    expect(JSON.stringify(calls.slice(0, 3))).not.toContain(b.secret);
  });

  it('offers no route that reads recorded calls under a secret', async () => {
    await post(`/s/${a.secret}/v1/chat/completions`, {}, 'secret data of a');
    await fx.sink.waitFor(1);
    for (const path of ['/v1/calls', '/v1/chat/completions', `/v1/calls/${a.rolloutId}`, '/v1/rollouts', '/v1/chat/completions/1']) {
      for (const [prefix, headers] of [
        [`/s/${b.secret}`, {}],
        ['', { authorization: `Bearer ${b.secret}` }],
      ] as const) {
        const res = await fetch(`${fx.proxy.url}${prefix}${path}`, { headers });
        expect(res.status).toBe(404);
        expect(await res.text()).not.toContain('secret data of a');
      }
    }
  });

  it('refuses every rollout secret on the control routes', async () => {
    for (const secret of [a.secret, b.secret]) {
      for (const [method, path] of [
        ['GET', '/control/status'],
        ['POST', '/control/pause'],
        ['POST', '/control/drain'],
        ['POST', '/control/sessions'],
      ] as const) {
        const bearer = await fetch(`${fx.proxy.url}${path}`, { method, headers: { authorization: `Bearer ${secret}` } });
        expect(bearer.status).toBe(403);
        const apiKey = await fetch(`${fx.proxy.url}${path}`, { method, headers: { 'x-api-key': secret } });
        expect(apiKey.status).toBe(403);
        const underPath = await fetch(`${fx.proxy.url}/s/${secret}${path}`, { method });
        expect(underPath.status).toBe(404);
      }
    }
    const status = (await (await fetch(`${fx.proxy.url}/control/status`)).json()) as { paused: boolean };
    expect(status.paused).toBe(false);
  });
});
