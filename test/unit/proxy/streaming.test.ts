import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { deferred, startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms))]);
}

describe('streaming pass-through', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('hands the client each chunk while the upstream is still holding back the rest', async () => {
    fx = await startFixture();
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise, text: 'first second third' });
    const stream = await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    const chunks = stream[Symbol.asyncIterator]();

    // role chunk, then the first content chunk: both must arrive before the gate opens
    let seen = '';
    while (!seen) {
      const next = await within(chunks.next(), 2_000, 'the first chunk was held back: the proxy buffers the stream');
      if (next.done) throw new Error('stream ended early');
      seen += next.value.choices[0]?.delta.content ?? '';
    }
    expect(seen).toBe('first');
    expect(fx.fake.produced).toHaveLength(1);

    gate.resolve();
    for (;;) {
      const next = await chunks.next();
      if (next.done) break;
      seen += next.value.choices[0]?.delta.content ?? '';
    }
    expect(seen).toBe('first second third');
    const [call] = await fx.sink.waitFor(1);
    expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds);
    expect(call?.ttfbMs).toBeLessThan(call?.durationMs ?? 0);
  });

  it('sends keepalive comments while the upstream is silent', async () => {
    fx = await startFixture({ keepaliveMs: 40 });
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise });
    const session = fx.session();
    const res = await fetch(`${fx.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.secret}` },
      body: JSON.stringify({ model: 'policy', messages: USER_MESSAGES, stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/: keepalive\n\n/g) ?? []).length < 2) {
      const { value, done } = await within(reader.read(), 2_000, 'no keepalive arrived');
      if (done) throw new Error('stream ended early');
      text += decoder.decode(value, { stream: true });
    }
    gate.resolve();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // keepalives come only in the silence after the first content chunk
    expect(text.indexOf(': keepalive')).toBeGreaterThan(text.indexOf('"Hello"'));
  });

  it('holds the upstream back while the harness does not read, and delivers every event once it does', async () => {
    fx = await startFixture();
    // 32 MB of text in 32 KB tokens: more than the sockets between the three of them hold
    const words = Array.from({ length: 1_000 }, (_, i) => `w${i}`.padEnd(32 * 1024, 'x'));
    fx.fake.script.push({ kind: 'text', text: words.join(' ') });
    const session = fx.session();
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        `${fx.proxy.url}/v1/chat/completions`,
        { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${session.secret}` } },
        resolve,
      );
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'policy', messages: USER_MESSAGES, stream: true }));
    });
    response.pause();
    // the harness reads nothing: the upstream's sending stops once the buffers on the way are full
    let sent = -1;
    while (sent !== fx.fake.bytesStreamed) {
      sent = fx.fake.bytesStreamed;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(fx.fake.streamsFinished).toBe(0);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(words.length * 32 * 1024);

    let text = '';
    response.setEncoding('utf8');
    response.on('data', (part: string) => (text += part));
    response.resume();
    await new Promise((resolve) => response.on('end', resolve));
    expect(fx.fake.streamsFinished).toBe(1);
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    const content = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice('data: '.length)).choices[0]?.delta.content ?? '')
      .join('');
    expect(content).toBe(words.join(' '));
    const [call] = await fx.sink.waitFor(1);
    expect(call?.error).toBeNull();
    expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds);
  }, 120_000);
});
