import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CallWriterThread } from '../../../src/store/call-writer-thread.js';
import { CallWriter } from '../../../src/store/call-writer.js';
import { CONNECTION_PRAGMAS, SqliteDb } from '../../../src/store/sqlite.js';
import { Store } from '../../../src/store/store.js';
import type { RecordedCall } from '../../../src/records/call.js';
import { packageRoot } from '../../../src/util/paths.js';

/** Call `seq` of a conversation whose prompt grows by 40 tokens a turn; its request comes as the harness's bytes. */
function turn(rolloutId: string, seq: number): RecordedCall {
  const prompt = Int32Array.from({ length: 40 * seq }, (_, i) => i % 1000);
  const messages = Array.from({ length: seq }, (_, k) => `{"role": "user", "content": "turn ${k + 1} ${'x'.repeat(400)}"}`);
  const requestJson = `{"messages": [${messages.join(', ')}]}`;
  return {
    rolloutId,
    seq,
    label: 'policy',
    protocol: 'chat',
    model: 'policy',
    stream: false,
    request: JSON.parse(requestJson),
    requestJson,
    requestBytes: Buffer.from(requestJson),
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

const tempDb = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'of-writer-thread-')), 'openforge.db');

describe('the call-writing thread', () => {
  it('stores prompts and requests as deltas of earlier calls, read back whole, and the request bytes as sent', async () => {
    const file = tempDb();
    const store = await Store.open(file, { callWriterThread: true });
    const turns = [1, 2, 3, 4, 5].map((seq) => turn('r', seq));
    for (const t of turns) await store.recordCall(t);
    const calls = await store.listCalls('r');
    expect(calls.map((c) => [...(c.promptTokenIds ?? [])])).toEqual(turns.map((t) => [...t.promptTokenIds!]));
    for (const [i, c] of calls.entries()) expect(await store.callRequestJson('r', c.seq)).toBe(turns[i]!.requestJson);
    await store.close();
    const db = await SqliteDb.open(file);
    const rows = await db.all<{ seq: number; prompt_base_seq: number | null; request_base_seq: number | null }>(
      'SELECT seq, prompt_base_seq, request_base_seq FROM calls ORDER BY seq',
    );
    await db.close();
    expect(rows.map((r) => r.prompt_base_seq)).toEqual([null, 1, 2, 3, 4]);
    expect(rows.slice(1).every((r) => r.request_base_seq !== null)).toBe(true);
  });

  it("takes a copy of the request's bytes: a view into memory shared with others is left whole", async () => {
    const store = await Store.open(tempDb(), { callWriterThread: true });
    const json = '{"messages": [{"role": "user", "content": "hi"}]}';
    // as a body read from a socket: a view into the stream's read buffer (not Node's pool, whose buffers cannot move)
    const shared = Buffer.alloc(4096);
    shared.write(`before${json}after`);
    const view = shared.subarray('before'.length, 'before'.length + json.length);
    await store.recordCall({ ...turn('r', 1), requestJson: json, requestBytes: view });
    expect(shared.toString('utf8', 0, `before${json}after`.length)).toBe(`before${json}after`);
    expect(await store.callRequestJson('r', 1)).toBe(json);
    await store.close();
  });

  it('a thread that stops fails only what it was sent and never answered; the calls after it are stored on the fallback connection', async () => {
    const file = tempDb();
    await (await Store.open(file)).close(); // the schema
    const db = await SqliteDb.open(file);
    await db.exec(CONNECTION_PRAGMAS);
    const thread = CallWriterThread.start(file, 0, () => new CallWriter(db, 0));
    await thread.add(turn('r', 1));
    const inFlight = thread.add(turn('r', 2)).then(
      () => 'stored',
      (err: Error) => err.message,
    );
    await thread.terminate();
    const fate = await inFlight;
    await thread.add(turn('r', 3));
    await thread.add(turn('r', 4));
    await thread.close();
    const stored = (await db.all<{ seq: number }>('SELECT seq FROM calls ORDER BY seq')).map((r) => r.seq);
    await db.close();
    if (fate === 'stored') expect(stored).toEqual([1, 2, 3, 4]);
    else {
      expect(fate).toMatch(/call-writing thread stopped .* before it confirmed this call's record/);
      expect(stored).toEqual([1, 3, 4]); // the thread died before writing it
    }
  });

  it("reads the tokens of an answer posted unread on its own thread, and stores the harness's answer as sent", async () => {
    const store = await Store.open(tempDb(), { callWriterThread: true });
    const answer = (ids: string) =>
      Buffer.from(
        `{"id":"c","choices":[{"index":0,"message":{"content":"hi"},"token_ids":[7,8],"logprobs":{"content":[{"token":"h","logprob":-0.25},{"token":"i","logprob":-0.5}]},"finish_reason":"stop"}],"prompt_token_ids":${ids}}`,
      );
    const responseJson = '{"id":"c","choices":[{"index":0,"message":{"content":"hi"},"logprobs":null,"finish_reason":"stop"}]}';
    // what the proxy posts: the token fields are read from `answerBytes` by whoever reads them first, never here
    const unread = (seq: number, bytes: Buffer): RecordedCall => {
      const call = { ...turn('r', seq), responseJson: undefined, response: null, responseBytes: Buffer.from(responseJson), answerBytes: bytes };
      for (const field of ['promptTokenIds', 'completionTokenIds', 'logprobs', 'finishReason', 'missingTokenIds', 'error'] as const) {
        Object.defineProperty(call, field, {
          get: () => {
            throw new Error(`${field} was read on the serving thread`);
          },
        });
      }
      return call as RecordedCall;
    };
    // a view into a larger buffer is copied, and left as it was
    const shared = Buffer.concat([answer('[1,2,3]'), Buffer.from('next')]);
    const view = shared.subarray(0, shared.length - 4);
    await store.recordCall(unread(1, view));
    expect(view.toString()).toBe(answer('[1,2,3]').toString());
    // an answer that fills an ArrayBuffer of its own is handed over: moved to the thread as it is
    const own = Buffer.alloc(answer('[1,2,3,7,8,4]').length);
    answer('[1,2,3,7,8,4]').copy(own);
    await store.recordCall(unread(2, own));
    expect(own.byteLength).toBe(0);
    await store.recordCall(unread(3, Buffer.from('{"id":"c","choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"n":1e}}')));
    const [first, second, broken] = await store.listCalls('r');
    expect(first).toMatchObject({
      promptTokenIds: [1, 2, 3],
      completionTokenIds: [7, 8],
      logprobs: [-0.25, -0.5],
      finishReason: 'stop',
      missingTokenIds: false,
      error: null,
      status: 200,
    });
    expect(second).toMatchObject({ promptTokenIds: [1, 2, 3, 7, 8, 4], completionTokenIds: [7, 8] });
    expect(await store.callResponseJson('r', 1)).toBe(responseJson);
    expect(broken).toMatchObject({ promptTokenIds: null, completionTokenIds: null, missingTokenIds: true, status: 200 });
    expect(broken?.error).toMatch(/the upstream's answer is not a JSON object/);
    await store.close();
  });

  it('reads the tokens and the response of a stream posted unread on its own thread, as the harness saw them', async () => {
    const store = await Store.open(tempDb(), { callWriterThread: true });
    const chunk = (body: object) => `data: ${JSON.stringify(body)}\n\n`;
    const sse = (...events: string[]) => Buffer.from(events.join(''));
    const first = chunk({
      id: 'c',
      created: 5,
      model: 'policy',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, token_ids: [] }],
      prompt_token_ids: [1, 2, 3],
    });
    const token = (text: string, id: number, finish: string | null = null) =>
      chunk({
        id: 'c',
        choices: [{ index: 0, delta: { content: text }, logprobs: { content: [{ token: text, logprob: -id / 100 }] }, finish_reason: finish, token_ids: [id] }],
      });
    const unread = (seq: number, bytes: Buffer, logprobs: boolean, error: string | null = null): RecordedCall => {
      const call = { ...turn('r', seq), stream: true, responseJson: undefined, streamedAnswer: { bytes, view: { logprobs }, relayError: error } };
      for (const field of ['promptTokenIds', 'completionTokenIds', 'logprobs', 'finishReason', 'missingTokenIds', 'response', 'error'] as const) {
        Object.defineProperty(call, field, {
          get: () => {
            throw new Error(`${field} was read on the serving thread`);
          },
        });
      }
      return call as RecordedCall;
    };
    const whole = sse(
      first,
      token('he', 7),
      token('y', 8, 'stop'),
      chunk({ id: 'c', choices: [], usage: { total_tokens: 5 } }),
      'data: [DONE]\n\n',
      'data: {"after":"done"}\n\n',
    );
    await store.recordCall(unread(1, whole, false));
    // an error event ends what is read: the tokens before it are kept, and the call keeps the proxy's error
    await store.recordCall(
      unread(2, sse(first, token('he', 7), chunk({ error: { message: 'overloaded' } }), token('y', 8)), true, 'upstream stream failed: overloaded'),
    );
    // an event that is not JSON ends it too, and names itself when nothing else did
    await store.recordCall(unread(3, sse(first, token('he', 7), 'data: {"id": nope}\n\n', token('y', 8)), true));
    const [done, failed, broken] = await store.listCalls('r');
    expect(done).toMatchObject({
      promptTokenIds: [1, 2, 3],
      completionTokenIds: [7, 8],
      logprobs: [-0.07, -0.08],
      finishReason: 'stop',
      missingTokenIds: false,
      error: null,
    });
    expect(JSON.parse((await store.callResponseJson('r', 1)) as string)).toEqual({
      id: 'c',
      object: 'chat.completion',
      created: 5,
      model: 'policy',
      usage: { total_tokens: 5 },
      choices: [{ index: 0, message: { role: 'assistant', content: 'hey' }, logprobs: null, finish_reason: 'stop' }],
    });
    expect(failed).toMatchObject({ completionTokenIds: [7], logprobs: [-0.07], finishReason: null, error: 'upstream stream failed: overloaded' });
    expect(JSON.parse((await store.callResponseJson('r', 2)) as string).choices[0]).toMatchObject({
      message: { content: 'he' },
      logprobs: { content: [{ token: 'he', logprob: -0.07 }] },
    });
    expect(broken).toMatchObject({ completionTokenIds: [7] });
    expect(broken?.error).toMatch(/stream stopped being readable: upstream sent an event that is not JSON: \{"id": nope\}/);
    await store.close();
  });

  it('a process that records calls and never closes its store still stores them before it exits', () => {
    const file = tempDb();
    const script = path.join(path.dirname(file), 'record.mjs');
    const storeModule = pathToFileURL(path.join(packageRoot(), 'dist/store/store.js')).href;
    writeFileSync(
      script,
      `import { Store } from ${JSON.stringify(storeModule)};
       const store = await Store.open(${JSON.stringify(file)}, { recordLingerMs: 200, callWriterThread: true });
       for (let seq = 1; seq <= 20; seq++) {
         void store.recordCall({ rolloutId: 'r', seq, label: 'policy', protocol: 'chat', model: 'm', stream: false, request: {}, requestJson: '{}',
           response: null, status: 200, error: null, promptTokenIds: [1, 2, 3], completionTokenIds: [4], logprobs: [-1], finishReason: 'stop',
           upstream: 'u', startedAt: 1, ttfbMs: 1, durationMs: 1, missingTokenIds: false });
       }`,
    );
    const ran = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000 });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    return (async () => {
      const store = await Store.open(file);
      expect((await store.countCalls(['r'])).get('r')).toBe(20);
      await store.close();
    })();
  });
});
