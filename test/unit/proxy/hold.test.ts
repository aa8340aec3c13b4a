import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

/**
 * Hold mode: a weight update longer than a client's whole retry budget ends no call. The OpenAI SDK (2 retries,
 * ~1.5 s of backoff, here with a 3 s timeout per attempt) is held through a 5 s pause and gets its answer; a
 * streamed call gets its headers and keepalive comments meanwhile; a call held past max_hold_sec is refused.
 */
describe('pause mode "hold"', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });
  const control = (path: string, body?: unknown) =>
    fetch(`${fx.proxy.url}/control/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      body: body !== undefined ? JSON.stringify(body) : undefined,
    }).then(async (res) => ({ status: res.status, json: (await res.json()) as Record<string, unknown> }));

  it('keeps whole and streamed calls waiting past every retry budget, answers them after resume, and records each once', async () => {
    fx = await startFixture({ keepaliveMs: 500 });
    const session = fx.session();
    expect((await control('pause', { mode: 'hold', max_hold_sec: 60 })).json).toMatchObject({ paused: true, mode: 'hold', held: 0 });
    const sdk = new OpenAI({ baseURL: `${fx.proxy.url}/s/${session.secret}/v1`, apiKey: 'x', maxRetries: 2, timeout: 30_000 });
    const whole = sdk.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    const streamed = fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES, stream: true }),
    });
    const res = await streamed;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(': keepalive\n\n');
    while ((await control('status')).json.held !== 2) await new Promise((r) => setTimeout(r, 20));
    // a drain waits for calls in flight, not for held ones
    expect((await control('drain', { timeout_sec: 5, mode: 'hold' })).json).toMatchObject({ drained: true, held: 2, in_flight: 0 });
    await new Promise((r) => setTimeout(r, 5_000));
    expect(fx.fake.requests).toHaveLength(0); // nothing reached the policy while paused
    expect(fx.sink.calls).toHaveLength(0);
    expect((await control('resume', {})).json).toMatchObject({ paused: false, mode: null });
    const answer = await whole;
    expect(answer.choices[0]!.message.content).toBeTruthy();
    let text = first;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text.match(/: keepalive\n\n/g)!.length).toBeGreaterThanOrEqual(5);
    expect(text).toMatch(/data: \[DONE\]\n\n$/);
    const calls = await fx.sink.waitFor(2);
    // released together: sequence numbers in the order they were served
    expect(calls.map((c) => c.seq).sort()).toEqual([1, 2]);
    expect(calls.map((c) => [c.status, c.stream]).sort()).toEqual([
      [200, false],
      [200, true],
    ]);
    expect(fx.fake.requests).toHaveLength(2);
  }, 30_000);

  it('refuses a call held past max_hold_sec with 429, and keeps refuse mode as before', async () => {
    fx = await startFixture();
    const session = fx.session();
    await control('pause', { mode: 'hold', max_hold_sec: 1, retry_after_sec: 2 });
    const started = Date.now();
    const res = await fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES }),
    });
    expect(res.status).toBe(429);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/held this call for its max_hold_sec/);
    await control('pause', { mode: 'refuse', retry_after_sec: 3 });
    const refused = await fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES }),
    });
    expect(refused.status).toBe(429);
    expect((await control('pause', { mode: 'wait' })).status).toBe(400);
    expect(fx.sink.calls).toHaveLength(0);
  });
});
