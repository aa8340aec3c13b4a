/** Test plumbing: a proxy in front of fake upstreams, in-memory sessions and sink. */
import OpenAI from 'openai';
import { startProxy } from '../../../src/proxy/server.js';
import { startStandaloneProxy, type StandaloneProxy, type StandaloneProxyOptions } from '../../../src/standalone-proxy/start.js';
import type { ProxyLogger, ProxyOptions } from '../../../src/proxy/types.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import type { RecordedCall } from '../../../src/records/call.js';
import { makeSuite } from '../../helpers/tasks.js';
import { startFakeVllm, type FakeVllm } from './fake-vllm-upstream.js';

export class MemorySink {
  readonly calls: RecordedCall[] = [];
  fail = false;

  async record(call: RecordedCall): Promise<void> {
    if (this.fail) throw new Error('sink is down');
    this.calls.push(call);
  }

  /** Records land after the answer, so tests wait for them. */
  async waitFor(count: number, timeoutMs = 3_000): Promise<RecordedCall[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.calls.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} recorded calls, have ${this.calls.length}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.calls;
  }
}

export class MemoryLogger implements ProxyLogger {
  readonly lines: string[] = [];
  warn(message: string): void {
    this.lines.push(message);
  }
  error(message: string): void {
    this.lines.push(message);
  }
}

export interface Fixture {
  proxy: RunningProxy;
  fakes: FakeVllm[];
  fake: FakeVllm;
  sink: MemorySink;
  logger: MemoryLogger;
  sessions: Map<string, ProxySession>;
  /** Adds a session and returns it. */
  session(name?: string): ProxySession;
  /** An official OpenAI SDK client using the /s/<secret>/v1 base URL (no SDK retries). */
  client(session: ProxySession): OpenAI;
  close(): Promise<void>;
}

let counter = 0;

export async function startFixture(
  options: { upstreams?: number; upstreamApiKey?: string } & Partial<Omit<ProxyOptions, 'upstreams' | 'sessions' | 'sink'>> = {},
): Promise<Fixture> {
  const fakes = await Promise.all(Array.from({ length: options.upstreams ?? 1 }, () => startFakeVllm()));
  const sessions = new Map<string, ProxySession>();
  const sink = new MemorySink();
  const logger = new MemoryLogger();
  const proxy = await startProxy({
    retry: { baseDelayMs: 5 },
    logger,
    ...options,
    upstreams: fakes.map((fake) => ({ url: fake.url, kind: 'vllm' as const, apiKey: options.upstreamApiKey })),
    sessions: { bySecret: (secret) => sessions.get(secret) },
    sink,
  });
  return {
    proxy,
    fakes,
    fake: fakes[0] as FakeVllm,
    sink,
    logger,
    sessions,
    session(name = `rollout-${++counter}`) {
      const session = { rolloutId: name, runId: 'run-1', taskId: `task-of-${name}`, secret: `secret-${name}-${Math.random().toString(36).slice(2)}` };
      sessions.set(session.secret, session);
      return session;
    },
    client(session) {
      return new OpenAI({ baseURL: `${proxy.url}/s/${session.secret}/v1`, apiKey: 'ignored-by-path-auth', maxRetries: 0 });
    },
    async close() {
      await proxy.close();
      await Promise.all(fakes.map((fake) => fake.close()));
    },
  };
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export const USER_MESSAGES = [{ role: 'user' as const, content: 'Say hello.' }];

/** `openforge proxy` on a free port in front of the sim's oracle for a one-task suite, closed mode unless overridden. */
export function startTestStandaloneProxy(options: Partial<StandaloneProxyOptions> & { dbFile: string }): Promise<StandaloneProxy> {
  return startStandaloneProxy({
    upstreams: ['sim:oracle'],
    kind: 'vllm',
    host: '127.0.0.1',
    port: 0,
    tasksDir: makeSuite([{ id: 'hello' }]),
    open: false,
    logger: new MemoryLogger(),
    ...options,
  });
}
