import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { controlDenial } from '../../../src/proxy/auth/control-auth.js';
import { deferred, startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

const ADMIN = 'admin-token-for-tests';

describe('pause, resume, drain', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });
  const control = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    fetch(`${fx.proxy.url}/control/${path}`, {
      method: init.method ?? 'POST',
      headers: {
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.token !== undefined ? { authorization: `Bearer ${init.token}` } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
  const chat = (secret: string) =>
    fetch(`${fx.proxy.url}/s/${secret}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES }),
    });

  it('refuses new calls with 429 + Retry-After while paused, records none of them, and serves again after resume', async () => {
    fx = await startFixture();
    const session = fx.session();
    const paused = await control('pause', { body: { retry_after_sec: 7 } });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ paused: true, in_flight: 0, retry_after_sec: 7 });

    const refused = await chat(session.secret);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(await refused.json()).toEqual({
      error: { message: expect.stringContaining('paused'), type: 'rate_limit_error', code: 'proxy_paused' },
    });
    const sdkError = await fx
      .client(session)
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES })
      .catch((e: unknown) => e);
    expect(sdkError).toBeInstanceOf(OpenAI.RateLimitError);
    expect(fx.fake.requests).toHaveLength(0);

    expect(await (await control('status', { method: 'GET' })).json()).toMatchObject({ paused: true, in_flight: 0 });
    expect(await (await control('resume')).json()).toMatchObject({ paused: false, retry_after_sec: null });
    expect((await chat(session.secret)).status).toBe(200);
    const calls = await fx.sink.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // the refused calls took no sequence numbers and left no record
    expect(calls.map((c) => [c.seq, c.status])).toEqual([[1, 200]]);
  });

  it('lets in-flight calls finish during a pause, and drain answers once they have', async () => {
    fx = await startFixture();
    const session = fx.session();
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise });
    const held = chat(session.secret);
    held.catch(() => undefined);
    while (fx.fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    expect(await (await control('status', { method: 'GET' })).json()).toMatchObject({ paused: false, in_flight: 1 });
    let drainedAt = 0;
    const drain = control('drain', { body: { timeout_sec: 10, retry_after_sec: 3 } }).then((res) => {
      drainedAt = Date.now();
      return res;
    });
    drain.catch(() => undefined); // awaited below; not unhandled if an expectation fails first
    while (!((await (await control('status', { method: 'GET' })).json()) as { paused: boolean }).paused) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(drainedAt).toBe(0);
    // draining pauses: a new call is refused while the held one is still being answered
    const refused = await chat(session.secret);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3');

    const releasedAt = Date.now();
    gate.resolve();
    const res = await drain;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ drained: true, paused: true, in_flight: 0, pending_records: 0 });
    expect(drainedAt).toBeGreaterThanOrEqual(releasedAt);
    expect((await held).status).toBe(200);
    // drain also waited for the record
    expect(fx.sink.calls.map((c) => [c.seq, c.status])).toEqual([[1, 200]]);
  });

  it('records with every call the weight version the last resume named', async () => {
    fx = await startFixture();
    const session = fx.session();
    expect((await chat(session.secret)).status).toBe(200);
    expect(await (await control('drain', { body: { timeout_sec: 5 } })).json()).toMatchObject({ drained: true, weight_version: null });
    expect(await (await control('resume', { body: { weight_version: 12 } })).json()).toMatchObject({ paused: false, weight_version: '12' });
    expect((await chat(session.secret)).status).toBe(200);
    // a resume that names no version keeps the current one
    await control('pause');
    expect(await (await control('resume')).json()).toMatchObject({ weight_version: '12' });
    expect((await chat(session.secret)).status).toBe(200);
    await control('resume', { body: { weight_version: 'step-13' } });
    expect((await chat(session.secret)).status).toBe(200);
    const calls = await fx.sink.waitFor(4);
    expect(calls.map((c) => [c.seq, c.weightVersion])).toEqual([
      [1, null],
      [2, '12'],
      [3, '12'],
      [4, 'step-13'],
    ]);
    const bad = await control('resume', { body: { weight_version: { v: 1 } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('weight_version');
  });

  it('answers drain with 409 when calls are still in flight at its timeout', async () => {
    fx = await startFixture();
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise });
    const held = chat(fx.session().secret);
    held.catch(() => undefined);
    while (fx.fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await fetch(`${fx.proxy.url}/control/drain?timeout_sec=0.1`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ drained: false, paused: true, in_flight: 1 });
    gate.resolve();
    expect((await held).status).toBe(200);
  });

  it('rejects bad control parameters with a 400 naming them', async () => {
    fx = await startFixture();
    for (const body of [{ retry_after_sec: -1 }, { retry_after_sec: 'soon' }, { retry_after_sec: 1.5 }, [1]]) {
      const res = await control('pause', { body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/retry_after_sec|JSON object/);
    }
    const drain = await control('drain', { body: { timeout_sec: 1e9 } });
    expect(drain.status).toBe(400);
    expect(await (await control('status', { method: 'GET' })).json()).toMatchObject({ paused: false });
  });

  it('says session creation is not available when the proxy has no session factory', async () => {
    fx = await startFixture();
    const res = await control('sessions', { body: {} });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('no_session_factory');
  });

  it('requires the admin token when one is set, and never accepts a rollout secret', async () => {
    fx = await startFixture({ adminToken: ADMIN });
    const session = fx.session();
    expect((await control('status', { method: 'GET' })).status).toBe(401);
    expect((await control('pause', { token: 'wrong' })).status).toBe(401);
    const withSecret = await control('pause', { token: session.secret });
    expect(withSecret.status).toBe(403);
    expect(((await withSecret.json()) as { error: { code: string } }).error.code).toBe('session_secret_refused');
    const asApiKey = await fetch(`${fx.proxy.url}/control/pause`, { method: 'POST', headers: { 'x-api-key': ADMIN } });
    expect(asApiKey.status).toBe(401); // the admin token is accepted as Bearer only
    const underSecret = await fetch(`${fx.proxy.url}/s/${session.secret}/control/pause`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(underSecret.status).toBe(404);
    expect(await (await control('status', { method: 'GET', token: ADMIN })).json()).toMatchObject({ paused: false });

    expect((await control('pause', { token: ADMIN })).status).toBe(200);
    expect((await chat(session.secret)).status).toBe(429);
    // the admin token is no session secret either
    const adminAsSecret = await chat(ADMIN);
    expect(adminAsSecret.status).toBe(401);
  });

  it('refuses a rollout secret on control routes even from loopback without an admin token', async () => {
    fx = await startFixture();
    const session = fx.session();
    const res = await control('pause', { token: session.secret });
    expect(res.status).toBe(403);
    const apiKey = await fetch(`${fx.proxy.url}/control/pause`, { method: 'POST', headers: { 'x-api-key': session.secret } });
    expect(apiKey.status).toBe(403);
    expect(await (await control('status', { method: 'GET' })).json()).toMatchObject({ paused: false });
  });
});

describe('controlDenial', () => {
  const sessions = { bySecret: (secret: string) => (secret === 'rollout-secret' ? { rolloutId: 'r', runId: 'x', taskId: 't', secret } : undefined) };

  it('without an admin token, answers loopback clients only', () => {
    const rule = { adminToken: undefined, sessions };
    expect(controlDenial(rule, {}, '127.0.0.1')).toBeNull();
    expect(controlDenial(rule, {}, '::1')).toBeNull();
    expect(controlDenial(rule, {}, '::ffff:127.0.0.1')).toBeNull();
    expect(controlDenial(rule, {}, '172.17.0.5')?.code).toBe('loopback_only');
    expect(controlDenial(rule, {}, undefined)?.code).toBe('loopback_only');
    expect(controlDenial(rule, { authorization: 'Bearer rollout-secret' }, '127.0.0.1')?.code).toBe('session_secret_refused');
  });

  it('with an admin token, accepts its bearer from anywhere and nothing else', () => {
    const rule = { adminToken: 'tok', sessions };
    expect(controlDenial(rule, { authorization: 'Bearer tok' }, '172.17.0.5')).toBeNull();
    expect(controlDenial(rule, { authorization: 'bearer  tok ' }, '10.0.0.1')).toBeNull();
    expect(controlDenial(rule, {}, '127.0.0.1')?.code).toBe('admin_token_required');
    expect(controlDenial(rule, { authorization: 'Bearer tok2' }, '127.0.0.1')?.code).toBe('admin_token_required');
    expect(controlDenial(rule, { authorization: 'Basic tok' }, '127.0.0.1')?.code).toBe('admin_token_required');
    expect(controlDenial(rule, { authorization: 'Bearer rollout-secret' }, '127.0.0.1')?.status).toBe(403);
  });
});
