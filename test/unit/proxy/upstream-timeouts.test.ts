import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startSimServer } from '../../../src/sim/server.js';
import type { Policy } from '../../../src/sim/policies/types.js';
import { startProxy } from '../../../src/proxy/server.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import type { UpstreamTimeouts } from '../../../src/proxy/types.js';
import { startStalledListener } from '../../helpers/stalled-listener.js';
import { MemoryLogger, MemorySink, startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

const SHORT: Partial<UpstreamTimeouts> = { connectMs: 200, firstByteMs: 200, idleMs: 200 };

/** Accepts connections and reads requests; answers nothing, or only what `respond` writes. */
async function startSilentUpstream(respond?: (socket: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  let requests = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => {
      requests++;
      respond?.(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function proxyOver(url: string, sink: MemorySink, timeouts: Partial<UpstreamTimeouts>): Promise<RunningProxy> {
  const session = { rolloutId: 'r-timeout', runId: 'run', taskId: 't', secret: 'timeout-secret' };
  return startProxy({
    upstreams: [{ url, kind: 'vllm' }],
    sessions: { bySecret: (secret) => (secret === session.secret ? session : undefined) },
    sink,
    logger: new MemoryLogger(),
    retry: { baseDelayMs: 5 },
    upstreamTimeouts: timeouts,
  });
}

function clientOf(proxy: RunningProxy): OpenAI {
  return new OpenAI({ baseURL: `${proxy.url}/s/timeout-secret/v1`, apiKey: 'x', maxRetries: 0 });
}

describe('upstream timeouts', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('answers 504 when the upstream accepts the request and never answers, without asking it again', async () => {
    const upstream = await startSilentUpstream();
    const sink = new MemorySink();
    const proxy = await proxyOver(upstream.url, sink, SHORT);
    cleanups.push(
      () => upstream.close(),
      () => proxy.close(),
    );
    const started = Date.now();
    const error = await clientOf(proxy)
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'upstream_timeout', type: 'upstream_error' });
    const [call] = await sink.waitFor(1);
    expect(call).toMatchObject({ status: 504, response: null, promptTokenIds: null, completionTokenIds: null });
    expect(call?.error).toContain('first-byte timeout');
    expect(upstream.requests()).toBe(1);
  });

  it('answers a streaming call 504 too when nothing at all came back', async () => {
    const upstream = await startSilentUpstream();
    const sink = new MemorySink();
    const proxy = await proxyOver(upstream.url, sink, SHORT);
    cleanups.push(
      () => upstream.close(),
      () => proxy.close(),
    );
    const error = await clientOf(proxy)
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    const [call] = await sink.waitFor(1);
    expect(call?.status).toBe(504);
  });

  it('answers 504 when a whole answer stops arriving halfway', async () => {
    const upstream = await startSilentUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"id":"chatcmpl-1","choi');
    });
    const sink = new MemorySink();
    const proxy = await proxyOver(upstream.url, sink, SHORT);
    cleanups.push(
      () => upstream.close(),
      () => proxy.close(),
    );
    const error = await clientOf(proxy)
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    const [call] = await sink.waitFor(1);
    expect(call?.status).toBe(504);
    expect(call?.error).toContain('idle timeout');
  });

  describe('mid-stream', () => {
    let fx: Fixture;
    afterEach(async () => {
      await fx.close();
    });

    it('ends a stream that goes silent with an error event, and records the call as failed', async () => {
      // a generous first-byte deadline: the call after the stalled stream must not trip it on a busy machine
      fx = await startFixture({ upstreamTimeouts: { firstByteMs: 5_000, idleMs: 300 } });
      fx.fake.script.push({ kind: 'hang' });
      const stream = await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
      let text = '';
      const error = await (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })().catch((e: unknown) => e);
      expect(text).toBe('Hello');
      expect((error as Error).message).toContain('idle timeout');
      const [call] = await fx.sink.waitFor(1);
      expect(call?.status).toBe(200);
      expect(call?.error).toMatch(/^upstream stream failed: .*idle timeout/);
      expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds.slice(0, 1));
      // the proxy keeps serving
      const after = await fx.client(fx.session()).chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
      expect(after.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    });
  });

  it('counts idleness between chunks, not the length of the whole stream, and keeps reused connections free of old deadlines', async () => {
    const words = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty';
    const policy: Policy = { name: 'long-text', respond: () => ({ content: words, toolCalls: [] }) };
    const sim = await startSimServer({ policy, tokenDelayMs: 50 });
    const sink = new MemorySink();
    const proxy = await proxyOver(sim.url, sink, { firstByteMs: 5_000, idleMs: 600 });
    cleanups.push(
      () => sim.close(),
      () => proxy.close(),
    );
    const client = clientOf(proxy);
    const started = Date.now();
    const text = await client.chat.completions.stream({ model: 'policy', messages: USER_MESSAGES }).finalContent();
    expect(Date.now() - started).toBeGreaterThan(800); // longer than idleMs, in 50 ms gaps
    expect(text).toBe(words);
    // the keep-alive socket sits idle in the pool for longer than idleMs, then serves again
    await new Promise((resolve) => setTimeout(resolve, 800));
    const whole = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(whole.choices[0]?.message.content).toBe(text);
    const calls = await sink.waitFor(2);
    expect(calls.map((c) => [c.status, c.error])).toEqual([
      [200, null],
      [200, null],
    ]);
  });

  it('gives up on an upstream that never completes the TCP handshake', async () => {
    const stalled = await startStalledListener();
    cleanups.push(() => stalled.close());
    const sink = new MemorySink();
    const proxy = await proxyOver(stalled.url, sink, { connectMs: 150 });
    cleanups.push(() => proxy.close());
    const started = Date.now();
    const error = await clientOf(proxy)
      .chat.completions.create({ model: 'policy', messages: USER_MESSAGES })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(Date.now() - started).toBeLessThan(3_000);
    const [call] = await sink.waitFor(1);
    expect(call?.error).toContain('connect timeout');
  });
});
