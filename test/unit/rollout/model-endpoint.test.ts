import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../../src/config/run.js';
import { startModelEndpoint, type ModelEndpoint } from '../../../src/rollout/model-endpoint.js';
import { Store } from '../../../src/store/store.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import { UserError } from '../../../src/util/errors.js';
import { startFakeVllm, type FakeVllm } from '../proxy/fake-vllm-upstream.js';

describe("openforge run's model endpoint", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const start = async (model: RunConfig['model'], sessions: Map<string, ProxySession>): Promise<{ endpoint: ModelEndpoint; store: Store }> => {
    const store = await Store.open(':memory:');
    cleanups.push(() => store.close());
    const endpoint = await startModelEndpoint({ model, tasks: [], store, sessions: { bySecret: (s) => sessions.get(s) }, network: { mode: 'none' } });
    cleanups.push(() => endpoint.close());
    return { endpoint, store };
  };

  it('spreads rollouts over model.upstream and model.replicas, each rollout on one server', async () => {
    const fakes: FakeVllm[] = await Promise.all([startFakeVllm(), startFakeVllm(), startFakeVllm()]);
    for (const fake of fakes) cleanups.push(() => fake.close());
    const sessions = new Map<string, ProxySession>();
    for (let i = 0; i < 12; i++) sessions.set(`secret-${i}`, { rolloutId: `rollout-${i}`, runId: 'run-1', taskId: 't', secret: `secret-${i}` });
    const [first, ...replicas] = fakes.map((f) => f.url) as [string, ...string[]];
    const { endpoint, store } = await start({ upstream: first, replicas, name: 'policy', kind: 'vllm', sampling: {} }, sessions);

    for (let round = 0; round < 2; round++) {
      await Promise.all(
        [...sessions.keys()].map((secret) =>
          new OpenAI({ baseURL: `http://127.0.0.1:${endpoint.port}/s/${secret}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions.create({
            model: 'policy',
            messages: [{ role: 'user', content: 'hi' }],
          }),
        ),
      );
    }
    expect(fakes.every((f) => f.requests.length > 0)).toBe(true);
    await store.flush();
    for (const session of sessions.values()) {
      const calls = await store.listCalls(session.rolloutId);
      expect(calls).toHaveLength(2);
      expect(new Set(calls.map((c) => c.upstream)).size).toBe(1);
    }
  });

  it('refuses replicas beside a simulated model', async () => {
    const err = await start({ upstream: 'sim:oracle', replicas: ['http://127.0.0.1:1/v1'], name: 'policy', kind: 'vllm', sampling: {} }, new Map()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toContain('model.replicas needs model.upstream to be a server of the same model, not "sim:oracle"');
  });
});
