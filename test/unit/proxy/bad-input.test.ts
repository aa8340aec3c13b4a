import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

interface ErrorBody {
  error: { message: string; type: string; code: string | null };
}

describe('bad input', () => {
  let fx: Fixture;
  let session: ProxySession;
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const stillServing = async () => {
    const res = await post(JSON.stringify({ model: 'policy', messages: USER_MESSAGES }));
    expect(res.status).toBe(200);
  };

  beforeEach(async () => {
    fx = await startFixture({ bodyLimitBytes: 4096 });
    session = fx.session();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('answers malformed JSON with a 400 naming the problem', async () => {
    const res = await post('{"model": "policy", "messages": [');
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.message).toMatch(/^malformed JSON body: /);
    expect(body.error.type).toBe('invalid_request_error');
    await stillServing();
    expect(fx.fake.requests).toHaveLength(1);
  });

  it('answers wrong types with a 400 naming the field, without calling the upstream', async () => {
    const cases: [unknown, RegExp][] = [
      [{ model: 'policy', messages: 'hello' }, /messages: .*expected array/],
      [{ model: 'policy', messages: [] }, /messages: /],
      [{ model: 42, messages: USER_MESSAGES }, /model: .*expected string/],
      [{ model: 'policy', messages: [{ content: 'no role' }] }, /messages\.0\.role: /],
      [{ model: 'policy', messages: USER_MESSAGES, stream: 'yes' }, /stream: .*expected boolean/],
      [{ model: 'policy', messages: USER_MESSAGES, n: 3 }, /n: .*one choice per call/],
      [[1, 2, 3], /body: .*expected object/],
    ];
    for (const [body, message] of cases) {
      const res = await post(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error.message).toMatch(message);
    }
    expect(fx.fake.requests).toHaveLength(0);
    // an authenticated but invalid call is still a call of the rollout: recorded with its error
    const calls = await fx.sink.waitFor(cases.length);
    expect(calls.every((c) => c.status === 400 && c.error !== null && c.response === null)).toBe(true);
    await stillServing();
  });

  it('answers an oversized body with 413 and keeps serving', async () => {
    const huge = JSON.stringify({ model: 'policy', messages: [{ role: 'user', content: 'x'.repeat(10_000) }] });
    const res = await post(huge);
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.message).toContain('4096 bytes');
    await stillServing();
    expect(fx.fake.requests).toHaveLength(1);
  });

  it('answers unknown routes with a JSON 404', async () => {
    for (const path of ['/v1/nope', `/s/${session.secret}/v1/embeddings`, '/']) {
      const res = await fetch(`${fx.proxy.url}${path}`, { method: 'POST' });
      expect(res.status).toBe(404);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe('unknown_route');
      expect(body.error.message).not.toContain(session.secret);
    }
    await stillServing();
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await post('model=policy', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as ErrorBody).error.message).toContain('application/json');
    await stillServing();
  });
});
