import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../../src/sim/server.js';
import { startProxy } from '../../../src/proxy/server.js';
import { SqliteDb } from '../../../src/store/sqlite.js';
import { Store } from '../../../src/store/store.js';
import { WriteBatcher } from '../../../src/store/write-batcher.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import type { RecordedCall } from '../../../src/records/call.js';

/** Call `seq` of a conversation whose prompt grows by 40 tokens a turn (long enough to be stored as a delta). */
function turn(rolloutId: string, seq: number): RecordedCall {
  const prompt = Array.from({ length: 40 * seq }, (_, i) => i % 1000);
  return {
    rolloutId,
    seq,
    label: 'policy',
    protocol: 'chat',
    model: 'policy',
    stream: false,
    request: { messages: [{ role: 'user', content: `turn ${seq}` }] },
    response: { choices: [] },
    status: 200,
    error: null,
    promptTokenIds: prompt,
    completionTokenIds: [seq],
    logprobs: [-0.5],
    finishReason: 'stop',
    upstream: 'http://u/v1',
    startedAt: 1000,
    ttfbMs: 1,
    durationMs: 2,
    missingTokenIds: false,
  };
}

const tempDb = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'of-batch-')), 'openforge.db');

describe.each([
  { where: 'on the store connection', callWriterThread: false },
  { where: 'on a call-writing thread', callWriterThread: true },
])('batched call writes, $where', ({ callWriterThread }) => {
  it('stores every call still queued when the store is closed', async () => {
    const file = tempDb();
    let store = await Store.open(file, { callWriterThread });
    const written = Array.from({ length: 300 }, (_, i) => store.recordCall(turn(`r${i % 3}`, Math.floor(i / 3) + 1)));
    await store.close(); // not awaiting the writes first
    await Promise.all(written);
    store = await Store.open(file, { callWriterThread });
    for (const id of ['r0', 'r1', 'r2']) {
      const calls = await store.listCalls(id);
      expect(calls.map((c) => c.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(calls.map((c) => c.promptTokenIds)).toEqual(calls.map((c) => turn(id, c.seq).promptTokenIds));
    }
    await store.close();
  });

  it('fails only the bad row of a batch; the others, and later prompts built on them, are stored', async () => {
    const file = tempDb();
    const store = await Store.open(file, { callWriterThread });
    await store.recordCall(turn('r', 1));
    const batch = [2, 3, 1, 4, 5].map((seq) =>
      store.recordCall(turn('r', seq)).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    );
    expect(await Promise.all(batch)).toEqual(['ok', 'ok', expect.stringMatching(/UNIQUE/), 'ok', 'ok']);
    await store.recordCall(turn('r', 6));
    const calls = await store.listCalls('r');
    expect(calls.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls.map((c) => c.promptTokenIds)).toEqual(calls.map((c) => turn('r', c.seq).promptTokenIds));
    await store.close();
  });

  it('never rebuilds a later prompt from a rejected duplicate row', async () => {
    const store = await Store.open(tempDb(), { callWriterThread });
    await store.recordCall(turn('r', 1));
    const other = Array.from({ length: 200 }, (_, i) => 5000 + i);
    const duplicate = { ...turn('r', 1), promptTokenIds: other, completionTokenIds: [9] };
    const batch = [store.recordCall(duplicate).catch((err: Error) => err.message), store.recordCall(turn('r', 2))];
    expect(await batch[0]).toMatch(/UNIQUE/);
    await batch[1];
    // a prompt that continues the rejected duplicate's tokens, not the stored call 1's
    const follow = { ...turn('r', 3), promptTokenIds: [...other, 9, 1, 2, 3] };
    await store.recordCall(follow);
    const calls = await store.listCalls('r');
    expect(calls.map((c) => c.promptTokenIds)).toEqual([turn('r', 1).promptTokenIds, turn('r', 2).promptTokenIds, follow.promptTokenIds]);
    await store.close();
  });

  it('stores the request exactly as the harness sent it, and every call of a proxy closed with writes queued', async () => {
    const sim = await startSimServer({ policy: { name: 'ok', respond: () => ({ content: 'ok', toolCalls: [] }) } });
    const file = tempDb();
    const store = await Store.open(file, { callWriterThread });
    const session: ProxySession = { rolloutId: 'p', runId: 'run', taskId: 't', secret: 'sekret' };
    const proxy = await startProxy({
      upstreams: [{ url: sim.url, kind: 'vllm' }],
      sessions: { bySecret: (s) => (s === 'sekret' ? session : undefined) },
      sink: store,
    });
    // odd spacing and key order: a re-serialised body would differ
    const body = (i: number) => `{ "messages": [{"content": "call ${i}", "role": "user"}],  "model": "policy" }`;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${proxy.url}/s/sekret/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(answers.every((s) => s === 200)).toBe(true);
    await proxy.close();
    await store.close();
    await sim.close();
    const db = await SqliteDb.open(file);
    const rows = await db.all<{ request: string; response: string }>('SELECT request, response FROM calls WHERE rollout_id = ? ORDER BY seq', ['p']);
    await db.close();
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.request))).toEqual(new Set(Array.from({ length: 40 }, (_, i) => body(i))));
    expect(JSON.parse(rows[0]!.response)).toMatchObject({ object: 'chat.completion' });
  });

  it("a proxy recording into a lingering store answers at once, and its calls are stored by the proxy's close", async () => {
    const sim = await startSimServer({ policy: { name: 'ok', respond: () => ({ content: 'ok', toolCalls: [] }) } });
    const file = tempDb();
    const store = await Store.open(file, { recordLingerMs: 60_000, callWriterThread });
    const session: ProxySession = { rolloutId: 'p', runId: 'run', taskId: 't', secret: 'sekret' };
    const proxy = await startProxy({
      upstreams: [{ url: sim.url, kind: 'vllm' }],
      sessions: { bySecret: (s) => (s === 'sekret' ? session : undefined) },
      sink: store,
    });
    const call = () =>
      fetch(`${proxy.url}/s/sekret/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"policy","messages":[{"role":"user","content":"hi"}]}',
      });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    expect((await store.countCalls(['p'])).get('p') ?? 0).toBe(0); // both still lingering
    const started = Date.now();
    await proxy.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await store.countCalls(['p'])).get('p')).toBe(2);
    await store.close();
    await sim.close();
  });
});

describe('WriteBatcher', () => {
  it('with a linger, gathers calls recorded apart into one write; a flush or a full batch writes at once', async () => {
    const batches: number[][] = [];
    const batcher = new WriteBatcher<number>(
      async (items) => {
        batches.push(items);
        return items.map(() => undefined);
      },
      4,
      60_000,
    );
    const first = [batcher.add(1)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    first.push(batcher.add(2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toEqual([]); // still lingering, 40 ms apart
    const started = Date.now();
    await batcher.flushed();
    await Promise.all(first);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([[1, 2]]);
    // a full batch does not wait
    await Promise.all([3, 4, 5, 6].map((n) => batcher.add(n)));
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5, 6],
    ]);
  });

  it('a flush waits for the calls recorded before it, not for those that keep coming', async () => {
    const batcher = new WriteBatcher<number>(async (items) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return items.map(() => undefined);
    }, 2);
    const written = new Set<number>();
    let n = 0;
    const feeding = setInterval(() => {
      const id = n++;
      void batcher.add(id).then(() => written.add(id));
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const before = n;
    await batcher.flushed();
    clearInterval(feeding);
    for (let id = 0; id < before; id++) expect(written.has(id)).toBe(true);
    await batcher.flushed();
  });
});
