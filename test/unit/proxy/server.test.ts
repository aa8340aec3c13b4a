import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startProxy } from '../../../src/proxy/server.js';
import type { RecordedCall } from '../../../src/records/call.js';
import { rawHttp } from '../../helpers/raw-http.js';
import { startFakeVllm, type FakeVllm } from './fake-vllm-upstream.js';
import { MemoryLogger, MemorySink, startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

describe('proxy server', () => {
  let fx: Fixture | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('answers /health without auth', async () => {
    fx = await startFixture();
    const res = await fetch(`${fx.proxy.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('lists the upstream models for an authenticated client, and refuses others', async () => {
    fx = await startFixture();
    const models = await fx.client(fx.session()).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake-model']);
    const anonymous = new OpenAI({ baseURL: `${fx.proxy.url}/v1`, apiKey: 'nope', maxRetries: 0 });
    await expect(anonymous.models.list()).rejects.toThrow(OpenAI.AuthenticationError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fx.sink.calls).toEqual([]);
  });

  it('serves several hosts on one port with one fastify instance', async () => {
    const fake: FakeVllm = await startFakeVllm();
    const sink = new MemorySink();
    const session = { rolloutId: 'r-multi', runId: 'run', taskId: 't', secret: 's-multi' };
    const proxy = await startProxy({
      upstreams: [{ url: fake.url, kind: 'vllm' }],
      sessions: { bySecret: (secret) => (secret === session.secret ? session : undefined) },
      sink,
      hosts: ['127.0.0.1', '127.0.0.2'],
      logger: new MemoryLogger(),
    });
    cleanups.push(async () => {
      await proxy.close();
      await fake.close();
    });
    expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
    for (const host of ['127.0.0.1', '127.0.0.2']) {
      const client = new OpenAI({ baseURL: `http://${host}:${proxy.port}/s/${session.secret}/v1`, apiKey: 'x', maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
      expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    }
    await sink.waitFor(2);
    expect(sink.calls.map((c) => c.seq)).toEqual([1, 2]);
  });

  it('names what the HTTP parser refuses (a control character in a header, huge headers, no HTTP at all) on every host, and keeps serving', async () => {
    const fake: FakeVllm = await startFakeVllm();
    const session = { rolloutId: 'r-raw', runId: 'run', taskId: 't', secret: 's-raw' };
    const proxy = await startProxy({
      upstreams: [{ url: fake.url, kind: 'vllm' }],
      sessions: { bySecret: (secret) => (secret === session.secret ? session : undefined) },
      sink: new MemorySink(),
      hosts: ['127.0.0.1', '127.0.0.2'],
      logger: new MemoryLogger(),
    });
    cleanups.push(async () => {
      await proxy.close();
      await fake.close();
    });
    const raw = (host: string, request: string) => rawHttp(proxy.port, host, request);
    for (const host of ['127.0.0.1', '127.0.0.2']) {
      const control = await raw(
        host,
        `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${session.secret}\x01\r\nContent-Length: 2\r\n\r\n{}`,
      );
      expect(control.status).toBe(400);
      expect(control.body.error).toMatchObject({ code: 'malformed_http_request' });
      expect(control.body.error.message).toMatch(/a request header holds a character HTTP does not allow/);
      const huge = await raw(host, `GET /v1/models HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(huge.status).toBe(431);
      expect(huge.body.error.message).toMatch(/headers are larger than this server accepts \(\d+ bytes\)/);
      const notHttp = await raw(host, 'HELLO\r\n\r\n');
      expect(notHttp.status).toBe(400);
      expect(notHttp.body.error.message).toMatch(/^the request is not valid HTTP\/1\.1 \(HPE_/);
      const client = new OpenAI({ baseURL: `http://${host}:${proxy.port}/s/${session.secret}/v1`, apiKey: 'x', maxRetries: 0 });
      expect((await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES })).choices[0]?.message.content).toBe(
        'Hello from the fake upstream.',
      );
    }
  });

  it('finishes in-flight calls and their records before close resolves', async () => {
    fx = await startFixture();
    let release: () => void = () => undefined;
    fx.sink.record = async function (this: MemorySink, call: RecordedCall) {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      this.calls.push(call);
    }.bind(fx.sink);
    await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    const closing = fx.proxy.close();
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(fx.sink.calls).toHaveLength(1);
  });

  it('refuses to start on a port that is taken', async () => {
    fx = await startFixture();
    const again = startProxy({
      upstreams: [{ url: fx.fake.url, kind: 'vllm' }],
      sessions: { bySecret: () => undefined },
      sink: new MemorySink(),
      port: fx.proxy.port,
      logger: new MemoryLogger(),
    });
    await expect(again).rejects.toThrow(/EADDRINUSE/);
  });
});
