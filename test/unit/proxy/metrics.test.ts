import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { StandaloneProxy } from '../../../src/standalone-proxy/start.js';
import { startFakeVllm, type FakeVllm } from './fake-vllm-upstream.js';
import { USER_MESSAGES, deferred, startFixture, startTestStandaloneProxy, type Fixture } from './proxy-fixture.js';

/** One sample of Prometheus's text format: a metric name, its labels, its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    out.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return out;
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none (Prometheus's reading of an absent counter). */
function value(all: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await fetch(`${baseUrl}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await res.text());
}

describe('GET /metrics', () => {
  let fx: Fixture | undefined;
  let standalone: StandaloneProxy | undefined;
  let fake: FakeVllm | undefined;
  afterEach(async () => {
    await fx?.close();
    await standalone?.close();
    await fake?.close();
    fx = standalone = fake = undefined;
  });

  it('counts calls by protocol, label and status, times them, and counts retries, refusals while paused and lost records', async () => {
    fx = await startFixture();
    const client = fx.client(fx.session());
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    const stream = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    for await (const _ of stream);
    // a 503 the proxy retries, then a 400 it does not
    fx.fake.script.push({ kind: 'status', status: 503 }, { kind: 'text' }, { kind: 'status', status: 400 });
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    await expect(client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES })).rejects.toMatchObject({ status: 400 });

    await fetch(`${fx.proxy.url}/control/pause`, { method: 'POST' });
    const paused = await scrape(fx.proxy.url);
    expect(value(paused, 'openforge_proxy_paused')).toBe(1);
    await expect(client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES })).rejects.toMatchObject({ status: 429 });
    await fetch(`${fx.proxy.url}/control/resume`, { method: 'POST' });

    const policy = { protocol: 'chat', label: 'policy' };
    let all = await scrape(fx.proxy.url);
    expect(value(all, 'openforge_proxy_paused')).toBe(0);
    expect(value(all, 'openforge_proxy_calls_total', { ...policy, status: '200' })).toBe(3);
    expect(value(all, 'openforge_proxy_calls_total', { ...policy, status: '400' })).toBe(1);
    // refused while paused: not a recorded call, counted apart
    expect(value(all, 'openforge_proxy_calls_total', { ...policy, status: '429' })).toBe(0);
    expect(value(all, 'openforge_proxy_paused_refusals_total', { protocol: 'chat' })).toBe(1);
    expect(value(all, 'openforge_proxy_upstream_retries_total', { upstream: fx.fake.url, reason: '503' })).toBe(1);
    expect(value(all, 'openforge_proxy_call_duration_seconds_count', { ...policy, stream: 'false' })).toBe(3);
    expect(value(all, 'openforge_proxy_call_duration_seconds_count', { ...policy, stream: 'true' })).toBe(1);
    expect(value(all, 'openforge_proxy_time_to_first_byte_seconds_count', { ...policy, stream: 'true' })).toBe(1);
    // every call took more than nothing and less than the largest bucket
    expect(value(all, 'openforge_proxy_call_duration_seconds_sum', { ...policy, stream: 'false' })).toBeGreaterThan(0);
    expect(value(all, 'openforge_proxy_call_duration_seconds_bucket', { ...policy, stream: 'false', le: '600' })).toBe(3);
    expect(value(all, 'openforge_proxy_calls_in_flight')).toBe(0);
    expect(value(all, 'openforge_proxy_record_failures_total')).toBe(0);
    expect(value(all, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(value(all, 'process_cpu_seconds_total')).toBeGreaterThan(0);

    // a store that fails: the harness is answered, the loss is logged and counted
    fx.sink.fail = true;
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    for (let i = 0; i < 100 && value(all, 'openforge_proxy_record_failures_total') === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      all = await scrape(fx.proxy.url);
    }
    expect(value(all, 'openforge_proxy_record_failures_total')).toBe(1);
    expect(value(all, 'openforge_proxy_calls_total', { ...policy, status: '200' })).toBe(4);
  });

  it('counts the calls in flight while they wait for their model', async () => {
    fx = await startFixture();
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise });
    const client = fx.client(fx.session());
    const waiting = client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    let inFlight = 0;
    for (let i = 0; i < 100 && inFlight === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight = value(await scrape(fx.proxy.url), 'openforge_proxy_calls_in_flight');
    }
    expect(inFlight).toBe(1);
    gate.resolve();
    await waiting;
    expect(value(await scrape(fx.proxy.url), 'openforge_proxy_calls_in_flight')).toBe(0);
  });

  it('answers the admin token only, never a rollout secret, when the proxy has one', async () => {
    fx = await startFixture({ adminToken: 'the-admin-token' });
    const session = fx.session();
    expect((await fetch(`${fx.proxy.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${fx.proxy.url}/metrics`, { headers: { authorization: `Bearer ${session.secret}` } })).status).toBe(403);
    await scrape(fx.proxy.url, { authorization: 'Bearer the-admin-token' });
  });

  it('counts the policy calls the store flagged as without token ids', async () => {
    fake = await startFakeVllm();
    fake.script.push({ kind: 'text' }, { kind: 'text', omitTokenIds: true }, { kind: 'text', omitTokenIds: true });
    const dbFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-metrics-')), 'calls.db');
    standalone = await startTestStandaloneProxy({ dbFile, upstreams: [fake.url], open: true, adminToken: 'the-admin-token', policyModels: ['policy'] });
    const client = new OpenAI({ baseURL: `${standalone.proxy.url}/v1`, apiKey: 'rollout-a', maxRetries: 0 });
    // whole (cut from the upstream's bytes, read on the store's thread), flagged whole, flagged streamed
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    const stream = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    for await (const _ of stream);

    const admin = { authorization: 'Bearer the-admin-token' };
    let flagged = 0;
    for (let i = 0; i < 200 && flagged < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      flagged = value(await scrape(standalone.proxy.url, admin), 'openforge_proxy_policy_calls_without_token_ids_total');
    }
    expect(flagged).toBe(2);
    // a counter: scraped again, it neither grows nor resets
    expect(value(await scrape(standalone.proxy.url, admin), 'openforge_proxy_policy_calls_without_token_ids_total')).toBe(2);
  });
});
