import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import type { Policy } from '../../../src/sim/policies/types.js';
import { endpoints } from '../../../src/proxy/protocols/registry.js';
import { startProxy } from '../../../src/proxy/server.js';
import { StandaloneSessions } from '../../../src/standalone-proxy/sessions.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import { Store } from '../../../src/store/store.js';
import { MemoryLogger, USER_MESSAGES } from './proxy-fixture.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

/**
 * Thousands of mutated requests against every route of every registered protocol, with the sim
 * as a healthy upstream: a 5xx can then only be the proxy's own failure. Seeded, so a failure
 * reproduces; the seed is in the assertion message (FUZZ_SEED=<n> runs another one, FUZZ_DEBUG=1
 * prints the status histogram and the proxy's log lines).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_202);
const MODEL_REQUESTS = 2_400;
const CONTROL_REQUESTS = 300;
const CONCURRENCY = 8;
const BODY_LIMIT = 1024 * 1024;
const ADMIN = 'fuzz-admin-token';

const BASH_TOOL_CHAT = { type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } };

/** Valid bodies per protocol name; a protocol without seeds here is still fuzzed with everyone else's. */
const SEEDS: Record<string, unknown[]> = {
  chat: [
    { model: 'policy', messages: USER_MESSAGES },
    { model: 'policy', messages: USER_MESSAGES, stream: true, stream_options: { include_usage: true }, logprobs: true, top_logprobs: 2 },
    {
      model: 'policy',
      tools: [BASH_TOOL_CHAT],
      max_tokens: 64,
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
    },
  ],
  anthropic: [
    { model: 'policy', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    {
      model: 'policy',
      max_tokens: 64,
      stream: true,
      system: [{ type: 'text', text: 'be brief' }],
      tools: [{ name: 'bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'run ls' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'bash', input: { command: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.txt' }] },
      ],
    },
  ],
  responses: [
    { model: 'policy', input: 'hi' },
    {
      model: 'policy',
      stream: true,
      instructions: 'be brief',
      tools: [{ type: 'function', name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } }],
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'run ls' }] },
        { type: 'function_call', call_id: 'fc1', name: 'bash', arguments: '{"command":"ls"}' },
        { type: 'function_call_output', call_id: 'fc1', output: 'a.txt' },
      ],
    },
  ],
};

class Mutator {
  constructor(private readonly random: () => number) {}

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** A request body: JSON text (or raw bytes) and the content type to send it with. */
  body(seeds: unknown[]): { payload: Buffer; contentType: string | undefined } {
    let value: unknown = structuredClone(this.pick(seeds));
    const rounds = 1 + this.int(3);
    for (let i = 0; i < rounds; i++) value = this.mutateValue(value);
    let text = (JSON.stringify(value) ?? 'null').replace(/"@@deep:(\d+)@@"/g, (_, n: string) => {
      const depth = Number(n);
      return `${'[{"nested":'.repeat(depth)}"bottom"${'}]'.repeat(depth)}`;
    });
    let payload: Buffer;
    switch (this.int(10)) {
      case 0:
        text = text.slice(0, this.int(text.length)); // truncated JSON
        payload = Buffer.from(text);
        break;
      case 1:
        text = text.replace(/^\{/, `{"model":${this.pick(['1', 'null', '"x"', '[]'])},"stream":${this.pick(['true', '"yes"', '0'])},`); // duplicated keys
        payload = Buffer.from(text);
        break;
      case 2:
        payload = this.invalidUtf8(Buffer.from(text));
        break;
      case 3:
        payload = Buffer.from(text.replace(/"hi"|"look"|"run ls"/, '"\\ud800\\udfff\\ud800 \\u0000"')); // lone surrogates, NUL
        break;
      default:
        payload = Buffer.from(text);
    }
    const contentType =
      this.int(8) === 0
        ? this.pick([
            undefined,
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=latin1',
            'application/json-patch+json',
            'APPLICATION/JSON',
          ])
        : 'application/json';
    return { payload, contentType };
  }

  private mutateValue(value: unknown): unknown {
    switch (this.int(7)) {
      case 0:
        return this.atRandomPath(value, () => undefined); // drop a field
      case 1:
        return this.atRandomPath(value, () => this.weird()); // retype a field
      case 2:
        return this.atRandomPath(value, () => 'x'.repeat(this.pick([10_000, 200_000, 2_000_000]))); // huge string
      case 3:
        return this.atRandomPath(value, () => this.deep(this.pick([100, 5_000, 50_000]))); // deep nesting
      case 4:
        return this.atRandomPath(value, (old) => [old, old]); // duplicate a value into a list
      case 5:
        return this.weird(); // replace the whole body
      default:
        return this.atRandomPath(value, (old) => (typeof old === 'object' && old !== null ? { ...old, [`extra_${this.int(5)}`]: this.weird() } : old));
    }
  }

  private weird(): unknown {
    return this.pick([
      null,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      true,
      false,
      '',
      'x',
      '🙂',
      [],
      {},
      [[[]]],
      [null],
      { role: 'user' },
      { type: 'text' },
      '{"a":1}',
      2 ** 53 + 1,
    ]);
  }

  /** A marker `body()` expands in the JSON text (too deep for JSON.stringify to build). */
  private deep(depth: number): unknown {
    return `@@deep:${depth}@@`;
  }

  /** Replaces one randomly chosen node of a JSON value (maybe the root). */
  private atRandomPath(value: unknown, replace: (old: unknown) => unknown): unknown {
    if (typeof value !== 'object' || value === null || this.int(4) === 0) return replace(value);
    const keys = Object.keys(value);
    if (keys.length === 0) return replace(value);
    const key = this.pick(keys);
    const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...value };
    const next = this.atRandomPath(copy[key], replace);
    if (next === undefined && !Array.isArray(copy)) delete copy[key];
    else copy[key] = next;
    return copy;
  }

  private invalidUtf8(bytes: Buffer): Buffer {
    const bad = this.pick([[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x28, 0xa1], [0xf8, 0x88, 0x80, 0x80, 0x80]]);
    const at = this.int(bytes.length + 1);
    return Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
  }
}

interface Sent {
  method: string;
  path: string;
  status: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(base: string, method: string, path: string, headers: Record<string, string>, payload?: Buffer): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: payload ? { ...headers, 'content-length': payload.length } : headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ method, path, status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function inBatches<T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++] as () => Promise<T>;
        results.push(await job());
      }
    }),
  );
  return results;
}

describe('fuzzing every route', () => {
  let sim: SimServer;
  let proxy: RunningProxy;
  let store: Store;
  const logger = new MemoryLogger();
  const sessions = new StandaloneSessions({ runId: 'fuzz', open: false, reserved: [ADMIN] });
  const secrets: string[] = [];
  const policy: Policy = { name: 'fuzz-echo', respond: () => ({ content: 'ok', toolCalls: [] }) };

  beforeAll(async () => {
    sim = await startSimServer({ policy });
    store = await Store.open(path.join(mkdtempSync(path.join(os.tmpdir(), 'of-fuzz-')), 'calls.db'));
    proxy = await startProxy({
      upstreams: [{ url: sim.url, kind: 'vllm' }],
      sessions,
      sessionFactory: sessions,
      adminToken: ADMIN,
      sink: store,
      logger,
      bodyLimitBytes: BODY_LIMIT,
      retry: { baseDelayMs: 1 },
    });
    for (let i = 0; i < 4; i++) secrets.push(sessions.create({ rolloutId: `fuzz-${i}` }).secret);
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    await store?.close();
    agent.destroy();
  });

  it('never answers 5xx nor crashes, records every authenticated call once, and still serves', async () => {
    const random = seededRandom(SEED);
    const mutate = new Mutator(random);
    const allSeeds = Object.values(SEEDS).flat();
    const routes = endpoints().flatMap((protocol) => protocol.paths.map((path) => ({ protocol: protocol.name, path })));
    expect(routes.length).toBeGreaterThan(0);

    const jobs: (() => Promise<Sent>)[] = [];
    for (let i = 0; i < MODEL_REQUESTS; i++) {
      const route = mutate.pick(routes);
      const seeds = mutate.int(4) === 0 ? allSeeds : (SEEDS[route.protocol] ?? allSeeds);
      const { payload, contentType } = mutate.body(seeds);
      const secret = mutate.pick(secrets);
      const auth = mutate.int(6);
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      let path = `/s/${secret}/v1${route.path}`;
      if (auth === 1 || auth === 2) {
        path = `/v1${route.path}`;
        if (auth === 1) headers.authorization = `Bearer ${secret}`;
        else headers['x-api-key'] = secret;
      }
      if (auth === 3) path = `/s/${secret.slice(1)}/v1${route.path}`; // wrong secret
      if (auth === 4 && mutate.int(2) === 0) path = `${path}?beta=${mutate.pick(['true', '%ff', '&&', '=x'])}`;
      const method = mutate.int(30) === 0 ? mutate.pick(['GET', 'PUT', 'DELETE', 'PATCH']) : 'POST';
      jobs.push(() => send(proxy.url, method, path, headers, method === 'GET' ? undefined : payload));
    }
    for (let i = 0; i < 100; i++) {
      const path = mutate.pick([
        '/',
        '/v1',
        '/v1/',
        `/s/${mutate.pick(secrets)}/v1/models`,
        '/v1/models',
        '/s//v1/chat/completions',
        '/v1/chat/completions/../models',
        '/%zz',
        `/v1/${'a/'.repeat(500)}`,
        '/health',
      ]);
      jobs.push(() => send(proxy.url, mutate.pick(['GET', 'POST', 'OPTIONS', 'HEAD']), path, { authorization: `Bearer ${mutate.pick(secrets)}` }));
    }
    const modelResults = await inBatches(jobs, CONCURRENCY);

    // control routes, one at a time so a fuzzed pause is undone before the next request
    const controlResults: Sent[] = [];
    for (let i = 0; i < CONTROL_REQUESTS; i++) {
      const path = `/control/${mutate.pick(['pause', 'resume', 'drain', 'sessions', 'status', 'nope'])}${mutate.int(4) === 0 ? `?timeout_sec=${mutate.pick(['0', '-1', 'x', '1e9', '0.01'])}&retry_after_sec=${mutate.pick(['1', '-5', '', 'NaN'])}` : ''}`;
      const { payload, contentType } = mutate.body([{ retry_after_sec: 1 }, { timeout_sec: 0.05 }, { rollout_id: `r-${i}`, task_id: 't' }, {}]);
      const token = mutate.pick([ADMIN, ADMIN, mutate.pick(secrets), 'wrong']);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) };
      controlResults.push(await send(proxy.url, mutate.int(8) === 0 ? 'GET' : 'POST', path, headers, payload));
      controlResults.push(await send(proxy.url, 'POST', '/control/resume', { authorization: `Bearer ${ADMIN}` }));
    }

    const failures = [...modelResults, ...controlResults].filter((r) => r.status >= 500 || r.status === 0);
    if (process.env.FUZZ_DEBUG) {
      const histogram: Record<number, number> = {};
      for (const r of [...modelResults, ...controlResults]) histogram[r.status] = (histogram[r.status] ?? 0) + 1;
      console.log(histogram, failures.length, logger.lines.slice(0, 20));
    }
    expect(failures.slice(0, 10), `seed ${SEED}: ${failures.length} requests got 5xx`).toEqual([]);
    const statuses = new Set(modelResults.map((r) => r.status));
    // the fuzz reached the handlers and the upstream, not only the parsers
    expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 401, 404]));
    expect(logger.lines).toEqual([]);

    // nothing recorded twice or lost: every rollout's sequence is 1..n without gaps
    // drain waits for in-flight calls and their records
    expect((await send(proxy.url, 'POST', '/control/drain', { authorization: `Bearer ${ADMIN}` })).status).toBe(200);
    await send(proxy.url, 'POST', '/control/resume', { authorization: `Bearer ${ADMIN}` });
    let recorded = 0;
    for (let i = 0; i < secrets.length; i++) {
      const seqs = (await store.listCalls(`fuzz-${i}`)).map((c) => c.seq);
      expect(seqs).toEqual(seqs.map((_, n) => n + 1));
      recorded += seqs.length;
    }
    expect(recorded).toBeGreaterThan(MODEL_REQUESTS / 10);

    const client = new OpenAI({ baseURL: `${proxy.url}/s/${secrets[0]}/v1`, apiKey: 'x', maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(completion.choices[0]?.message.content).toBe('ok');
    for (const protocol of endpoints()) {
      const [seed] = SEEDS[protocol.name] ?? [];
      if (seed === undefined) continue;
      const res = await send(
        proxy.url,
        'POST',
        `/s/${secrets[1]}/v1${protocol.paths[0]}`,
        { 'content-type': 'application/json' },
        Buffer.from(JSON.stringify(seed)),
      );
      expect(res.status, `${protocol.name} after the fuzz`).toBe(200);
    }
  }, 180_000);
});
