import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTasks } from '../../src/config/task.js';
import { startSimServer } from '../../src/sim/server.js';
import { workspaceImage } from '../helpers/docker.js';
import { rawHttp } from '../helpers/raw-http.js';
import { makeSuite } from '../helpers/tasks.js';
import { serveUrl } from '../helpers/serve-url.js';

/** The rollout service as a trainer sees it: the built CLI (`openforge serve`) over real HTTP. */
const CLI = path.resolve('bin/openforge.js');
let server: ChildProcess;
let base: string;
const TOKEN = 'service-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: body === undefined ? AUTH : { ...AUTH, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** GET /metrics, with its series by their text (name and labels) as Prometheus reads them. */
async function scrape(): Promise<{ text: string; value(series: string): number | undefined; sum(series: RegExp): number }> {
  const res = await fetch(`${base}/metrics`, { headers: AUTH });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\S+(?:\{.*\})?) (\S+)$/.exec(line);
    if (match && !line.startsWith('#')) series.set(match[1]!, Number(match[2]));
  }
  return {
    text,
    value: (name) => series.get(name),
    sum: (pattern) => [...series].filter(([name]) => pattern.test(name)).reduce((total, [, v]) => total + v, 0),
  };
}

beforeAll(async () => {
  await workspaceImage();
  const out = mkdtempSync(path.join(os.tmpdir(), 'of-serve-'));
  // port 0: the service takes a free port and prints it (a port picked here could be taken before it binds)
  const tokenFile = path.join(out, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  server = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--output', out, '--concurrency', '4', '--token-file', tokenFile, '--tasks-root', os.tmpdir()],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  base = await serveUrl(server);
}, 120_000);

afterAll(async () => {
  if (!server || server.exitCode !== null || server.signalCode !== null) return; // it never came up, or has exited
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
});

describe('openforge serve (rollout service)', () => {
  it('runs a GRPO group against a sim upstream and returns rewards with long-poll', async () => {
    const suite = makeSuite([{ id: 'svc-a' }, { id: 'svc-b' }]);
    const submitted = await api('POST', '/v1/rollouts', { tasks: suite, upstream: 'sim:noisy:0.5', n: 3, weight_version: 7 });
    expect(submitted.status).toBe(202);
    expect(submitted.json.ids).toHaveLength(6);
    expect(Object.keys(submitted.json.groups).sort()).toEqual(['svc-a', 'svc-b']);
    const views = await Promise.all(submitted.json.ids.map((id: string) => api('GET', `/v1/rollouts/${encodeURIComponent(id)}?wait=120`)));
    for (const v of views) {
      expect(v.status).toBe(200);
      expect(v.json.status).toBe('finished');
      expect([0, 1]).toContain(v.json.reward);
      expect(v.json.weight_version).toBe(7);
      expect(v.json.group).toBe(submitted.json.groups[v.json.task_id]);
      // Token-level samples: the oracle's turns merged into one sample; a give-up is one turn.
      expect(v.json.samples.length).toBeGreaterThanOrEqual(1);
      const [sample] = v.json.samples;
      expect(sample).toMatchObject({ uid: v.json.task_id, weight_version: '7', segment: 0, break_reason: null });
      expect(sample.response_ids.length).toBe(sample.response_mask.length);
      expect(sample.response_ids.length).toBe(sample.response_logprobs.length);
      expect(sample.reward_score).toBe(v.json.reward);
    }
    // 6 rollouts, 4 at once: the last 2 waited in the queue while the warm pool started their containers
    expect((await api('GET', '/health')).json.warm_pool).toEqual({ warm: 2, cold: 4, unused: 0, idle: 0 });
  }, 180_000);

  it('pauses and resumes the proxies around a weight update', async () => {
    expect((await api('POST', '/v1/proxy/pause', { retry_after_sec: 2 })).json).toEqual({ paused: true });
    const suite = makeSuite([{ id: 'svc-paused' }]);
    const { json } = await api('POST', '/v1/rollouts', { tasks: suite, upstream: 'sim:oracle' });
    const early = await api('GET', `/v1/rollouts/${encodeURIComponent(json.ids[0])}?wait=3`);
    expect(early.json.status).toBe('running'); // the harness is being told 429 + Retry-After
    expect((await api('POST', '/v1/proxy/resume')).json).toEqual({ paused: false, weight_version: null });
    const done = await api('GET', `/v1/rollouts/${encodeURIComponent(json.ids[0])}?wait=120`);
    expect(done.json).toMatchObject({ status: 'finished', reward: 1 });
  }, 180_000);

  it('drains before a weight update: waits for the model calls in flight, refuses new ones until resumed', async () => {
    const suite = makeSuite([{ id: 'svc-drain' }]);
    // an engine as slow as a real one: each answer takes 40 ms per token
    const slow = await startSimServer({ policy: { kind: 'oracle' }, tasks: loadTasks(suite), tokenDelayMs: 40, modelName: 'drain-policy' });
    try {
      const { json } = await api('POST', '/v1/rollouts', { tasks: suite, upstream: slow.url, model: 'drain-policy' });
      const callInFlight = async () => {
        for (let i = 0; i < 600; i++) {
          if ((await scrape()).sum(/^openforge_proxy_calls_in_flight$/) > 0) return true;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return false;
      };
      // out of time with a call in flight: 409, what is left, and the proxies stay paused (a call can end
      // between the scrape and the drain: then resume and catch the next one)
      let tooSoon: Awaited<ReturnType<typeof api>> | undefined;
      for (let i = 0; i < 10 && tooSoon?.status !== 409; i++) {
        expect(await callInFlight()).toBe(true);
        tooSoon = await api('POST', '/v1/proxy/drain', { timeout_sec: 0 });
        if (tooSoon.status !== 409) await api('POST', '/v1/proxy/resume');
      }
      expect(tooSoon!.status).toBe(409);
      expect(tooSoon!.json).toMatchObject({ paused: true, drained: false });
      expect(tooSoon!.json.in_flight).toBeGreaterThan(0);
      expect(tooSoon!.json.error.message).toMatch(/^\d+ model calls still in flight and \d+ records unwritten after 0 s; the proxies stay paused/);
      expect((await scrape()).value('openforge_proxy_paused')).toBe(1);
      // given time, it answers once the call seen in flight has ended and is recorded
      const drained = await api('POST', '/v1/proxy/drain', { timeout_sec: 60, retry_after_sec: 1 });
      expect(drained.status).toBe(200);
      expect(drained.json).toEqual({ paused: true, drained: true, in_flight: 0, pending_records: 0 });
      expect((await scrape()).value('openforge_proxy_paused')).toBe(1);
      // the harness is told to come back later; its rollout waits instead of failing
      const waiting = await api('GET', `/v1/rollouts/${encodeURIComponent(json.ids[0])}?wait=2`);
      expect(waiting.json.status).toBe('running');
      expect((await api('POST', '/v1/proxy/resume')).json).toEqual({ paused: false, weight_version: null });
      expect((await api('GET', `/v1/rollouts/${encodeURIComponent(json.ids[0])}?wait=120`)).json).toMatchObject({ status: 'finished', reward: 1 });
    } finally {
      await slow.close();
    }
  }, 180_000);

  it('serves Prometheus metrics of its rollouts and of all its proxies as one exposition', async () => {
    const before = await scrape();
    const suite = makeSuite([{ id: 'svc-metrics' }]);
    const { json } = await api('POST', '/v1/rollouts', { tasks: suite, upstream: 'sim:oracle', model: 'metrics-policy', n: 2 });
    for (const id of json.ids)
      expect((await api('GET', `/v1/rollouts/${encodeURIComponent(id)}?wait=120`)).json).toMatchObject({ status: 'finished', reward: 1 });
    const after = await scrape();
    const delta = (series: string) => (after.value(series) ?? 0) - (before.value(series) ?? 0);
    expect(delta('openforge_service_rollouts_submitted_total')).toBe(2);
    expect(delta('openforge_service_rollouts_ended_total{outcome="finished"}')).toBe(2);
    expect(delta('openforge_service_rollouts{state="finished"}')).toBe(2);
    expect(delta('openforge_service_reward_count')).toBe(2);
    expect(delta('openforge_service_reward_sum')).toBe(2);
    expect(delta('openforge_service_rollout_duration_seconds_count{outcome="finished"}')).toBe(2);
    // a new model name is a new proxy: its calls are added to the others' under the same series
    const policyCalls = (m: Awaited<ReturnType<typeof scrape>>) => m.sum(/^openforge_proxy_calls_total\{.*label="policy".*status="200"/);
    expect(policyCalls(after) - policyCalls(before)).toBeGreaterThanOrEqual(2);
    expect(after.value('openforge_proxy_calls_in_flight')).toBe(0);
    expect(after.value('openforge_proxy_paused')).toBe(0);
    // what describes the process is there once, whatever the number of proxies
    expect(after.text.match(/^process_resident_memory_bytes /gm)).toHaveLength(1);
    expect(after.value('process_resident_memory_bytes')).toBeGreaterThan(10e6);
    const types = after.text.match(/^# TYPE \S+/gm)!;
    expect(new Set(types).size).toBe(types.length);
  }, 180_000);

  it('holds model calls through a weight update twice as long as the harness retries, and no rollout fails', async () => {
    // forge-agent retries a refused call 4 times over 1 + 2 + 4 + 8 s: a 30 s pause in refuse mode would end it
    const suite = makeSuite([{ id: 'svc-hold' }]);
    expect((await api('POST', '/v1/proxy/pause', { mode: 'hold', max_hold_sec: 120 })).json).toEqual({ paused: true });
    const { json } = await api('POST', '/v1/rollouts', { tasks: suite, upstream: 'sim:oracle', model: 'hold-policy', n: 2 });
    let held = 0;
    for (let i = 0; i < 1200 && held < 2; i++) {
      held = (await scrape()).value('openforge_proxy_calls_held') ?? 0;
      if (held < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(held).toBe(2);
    await new Promise((r) => setTimeout(r, 30_000));
    expect((await scrape()).value('openforge_proxy_calls_held')).toBe(2);
    expect((await api('POST', '/v1/proxy/resume')).json).toEqual({ paused: false, weight_version: null });
    for (const id of json.ids as string[]) {
      const done = await api('GET', `/v1/rollouts/${encodeURIComponent(id)}?wait=120`);
      expect(done.json).toMatchObject({ status: 'finished', reward: 1, error_type: null, attempts: 1 });
    }
  }, 240_000);

  it('cancels a running rollout (DELETE), and long-polls a group until every rollout of it has ended', async () => {
    const suite = makeSuite([{ id: 'svc-cancel' }]);
    const slow = await startSimServer({ policy: { kind: 'oracle' }, tasks: loadTasks(suite), tokenDelayMs: 60, modelName: 'cancel-policy' });
    try {
      const { json } = await api('POST', '/v1/rollouts', { tasks: suite, upstream: slow.url, model: 'cancel-policy', n: 2 });
      const [victim, survivor] = json.ids as string[];
      const group = json.groups['svc-cancel'] as string;
      expect((await api('GET', `/v1/groups/${encodeURIComponent(group)}`)).json).toMatchObject({ group, ended: false, uniform: null });
      // running, with a model call under way
      for (let i = 0; i < 600; i++) {
        if ((await scrape()).sum(/^openforge_proxy_calls_in_flight$/) > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await api('GET', `/v1/rollouts/${encodeURIComponent(victim!)}`)).json.status).toBe('running');
      const started = Date.now();
      expect(await api('DELETE', `/v1/rollouts/${encodeURIComponent(victim!)}`)).toEqual({ status: 202, json: { id: victim, cancelling: true } });
      const cancelled = await api('GET', `/v1/rollouts/${encodeURIComponent(victim!)}?wait=60`);
      expect(cancelled.json).toMatchObject({ status: 'cancelled', reward: null, error_type: 'cancelled' });
      expect(cancelled.json.samples).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await api('DELETE', `/v1/rollouts/${encodeURIComponent(victim!)}`)).status).toBe(409);
      expect((await api('DELETE', '/v1/rollouts/nope')).status).toBe(404);
      const ended = await api('GET', `/v1/groups/${encodeURIComponent(group)}?wait=120`);
      expect(ended.json.ended).toBe(true);
      expect(ended.json.rollouts.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
        [victim, 'cancelled'],
        [survivor, 'finished'],
      ]);
      expect(ended.json.uniform).toBe(true); // one graded rollout: no spread of rewards
      expect((await api('GET', '/v1/groups/nope')).status).toBe(404);
    } finally {
      await slow.close();
    }
  }, 180_000);

  it('answers bad input with a 4xx naming the problem and keeps serving', async () => {
    const missing = await api('POST', '/v1/rollouts', { upstream: 'sim:oracle' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toMatch(/tasks/);
    const wrongType = await api('POST', '/v1/rollouts', { tasks: '/x', upstream: 'sim:oracle', n: 'many' });
    expect(wrongType.json.error.message).toMatch(/n:/);
    const replicasOfSim = await api('POST', '/v1/rollouts', { tasks: '/x', upstream: 'sim:oracle', replicas: ['http://10.0.0.2:8000/v1'] });
    expect(replicasOfSim.status).toBe(400);
    expect(replicasOfSim.json.error.message).toMatch(/^replicas: replicas are more servers of the model at upstream, which is "sim:oracle"/);
    const malformed = await api('POST', '/v1/rollouts', '{"tasks": ');
    expect(malformed.status).toBe(400);
    const noTasks = await api('POST', '/v1/rollouts', { tasks: '/no/such/suite', upstream: 'sim:oracle' });
    expect(noTasks.status).toBe(400);
    expect(noTasks.json.error.message).toMatch(/does not exist/);
    expect((await api('GET', '/v1/rollouts/nope')).status).toBe(404);
    expect((await api('GET', '/v1/rollouts/nope?wait=forever')).status).toBe(400);
    expect((await api('GET', '/v2/whatever')).status).toBe(404);
    const { hostname, port } = new URL(base);
    const notHttp = await rawHttp(Number(port), hostname, 'HELLO\r\n\r\n');
    expect(notHttp.status).toBe(400);
    expect(notHttp.body.error.message).toMatch(/^the request is not valid HTTP\/1\.1/);
    const badDrain = await api('POST', '/v1/proxy/drain', { timeout_sec: 'soon' });
    expect(badDrain.status).toBe(400);
    expect(badDrain.json.error.message).toMatch(/^timeout_sec: /);
    const { status: closedStatus, json: closed } = await api('POST', '/v1/rollouts', {
      tasks: makeSuite([{ id: 'svc-down' }]),
      upstream: 'http://127.0.0.1:1/v1',
    });
    expect(closedStatus).toBe(502);
    expect(closed.error.message).toMatch(
      /^the upstream http:\/\/127\.0\.0\.1:1\/v1 \(upstream\) cannot serve the policy: GET http:\/\/127\.0\.0\.1:1\/v1\/models failed: ECONNREFUSED/,
    );
    const spec = await api('GET', '/openapi.json');
    expect(spec.json.paths['/v1/rollouts'].post).toBeDefined();
    expect((await api('GET', '/health')).status).toBe(200);
  });

  it('lets in only the bearer of its token, and only the task folders and upstreams it was started with', async () => {
    const routes: [string, string][] = [
      ['POST', '/v1/rollouts'],
      ['GET', '/v1/rollouts/x'],
      ['POST', '/v1/proxy/pause'],
      ['POST', '/v1/proxy/drain'],
      ['POST', '/v1/proxy/resume'],
      ['GET', '/metrics'],
      ['GET', '/openapi.json'],
      ['GET', '/v2/unknown'],
    ];
    for (const [method, url] of routes) {
      for (const authorization of [undefined, 'Bearer wrong-token-of-some-length', `Basic ${TOKEN}`, TOKEN]) {
        const res = await fetch(`${base}${url}`, { method, headers: authorization ? { authorization } : {} });
        expect({ method, url, authorization, status: res.status }).toEqual({ method, url, authorization, status: 401 });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/needs Authorization: Bearer/);
      }
    }
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`, { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);

    const outside = await api('POST', '/v1/rollouts', { tasks: path.resolve('envs/claw-basic'), upstream: 'sim:oracle' });
    expect(outside.status).toBe(400);
    expect(outside.json.error.message).toMatch(/^tasks: \S+envs\/claw-basic lies outside the task roots \(.*\); start openforge serve with --tasks-root/);
    const suite = makeSuite([{ id: 'svc-allow' }]);
    const farUpstream = await api('POST', '/v1/rollouts', { tasks: suite, upstream: 'http://169.254.169.254/v1' });
    expect(farUpstream.status).toBe(400);
    expect(farUpstream.json.error.message).toMatch(
      /^upstream: http:\/\/169\.254\.169\.254\/v1 matches no --allow-upstream pattern \(sim:\*, http:\/\/127\.0\.0\.1:\*/,
    );
    const farReplica = await api('POST', '/v1/rollouts', { tasks: suite, upstream: 'http://127.0.0.1:1/v1', replicas: ['http://10.1.2.3:8000/v1'] });
    expect(farReplica.status).toBe(400);
    expect(farReplica.json.error.message).toMatch(/^replicas\.0: http:\/\/10\.1\.2\.3:8000\/v1 matches no --allow-upstream pattern/);
  });

  it('records the weight version each resume names with the calls it answers, splits a rollout that straddles an update, and marks it stale past max_staleness', async () => {
    const solve = '#!/bin/bash\n# step: look\nls /workspace\n# step: finish\necho done > /workspace/done.txt\n';
    const suite = makeSuite([{ id: 'svc-versions', solve }]);
    const slow = await startSimServer({ policy: { kind: 'oracle' }, tasks: loadTasks(suite), tokenDelayMs: 40, modelName: 'versions-policy' });
    try {
      expect((await api('POST', '/v1/proxy/resume', { weight_version: 'v1' })).json).toEqual({ paused: false, weight_version: 'v1' });
      expect((await api('POST', '/v1/proxy/resume', { weight_version: [] })).status).toBe(400);
      const { json } = await api('POST', '/v1/rollouts', {
        tasks: suite,
        upstream: slow.url,
        model: 'versions-policy',
        n: 1,
        weight_version: 'request-label',
        max_staleness: 0,
      });
      const id = (json.ids as string[])[0]!;
      // the first model call under way: drain it (answered by v1), hold what comes next through the update
      for (let i = 0; i < 600; i++) {
        if ((await scrape()).sum(/^openforge_proxy_calls_in_flight$/) > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await api('POST', '/v1/proxy/drain', { timeout_sec: 60, mode: 'hold', max_hold_sec: 120 })).json).toMatchObject({ drained: true });
      expect((await api('POST', '/v1/proxy/resume', { weight_version: 2 })).json).toEqual({ paused: false, weight_version: '2' });
      const done = await api('GET', `/v1/rollouts/${encodeURIComponent(id)}?wait=120`);
      // its first call is one update old at its end: past max_staleness 0, kept but without samples
      expect(done.json).toMatchObject({ status: 'finished', reward: 1, attempts: 1, staleness: 1, stale: true });
      expect(done.json.samples).toBeUndefined();
      expect((await scrape()).value('openforge_service_rollouts_stale_total')).toBe(1);
      const asked = await api('GET', `/v1/rollouts/${encodeURIComponent(id)}?include_stale=true`);
      const samples = asked.json.samples as {
        segment: number;
        break_reason: string | null;
        weight_version: string | null;
        extra_fields: { call_seqs: number[] };
      }[];
      expect(samples.map((x) => [x.segment, x.break_reason, x.weight_version])).toEqual([
        [0, null, 'v1'],
        [1, 'weight_update', '2'],
      ]);
      expect(samples[0]!.extra_fields.call_seqs).toEqual([1]);
      expect(samples[1]!.extra_fields.call_seqs[0]).toBe(2);
    } finally {
      await slow.close();
    }
  }, 180_000);
});
