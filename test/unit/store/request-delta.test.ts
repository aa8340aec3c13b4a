import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { startProxy } from '../../../src/proxy/server.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import { STORE_FILE } from '../../../src/rollout/run.js';
import { RequestDeltaWriter, sharedPrefixLength } from '../../../src/store/request-delta.js';
import { SqliteDb } from '../../../src/store/sqlite.js';
import { Store } from '../../../src/store/store.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import type { RecordedCall } from '../../../src/records/call.js';
import type { Task } from '../../../src/config/task.js';
import { INSTRUCTION, SOLVE_SH, makeTask, removeTaskDirs } from '../sim/fixtures.js';
import { MemoryLogger } from '../proxy/proxy-fixture.js';

/** A long system prompt, as real harnesses send: the part every later request repeats. */
const SYSTEM = `You are a coding agent. ${'Follow the repository conventions and explain nothing. '.repeat(30)}`;
const BASH = {
  type: 'function' as const,
  function: {
    name: 'bash',
    description: 'Run a bash command.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
};

/** The proxy's sink: each call goes into the real store and is kept as the proxy handed it over. */
class TeeSink {
  readonly calls: RecordedCall[] = [];
  constructor(readonly store: Store) {}
  async record(call: RecordedCall): Promise<void> {
    this.calls.push(call);
    await this.store.record(call);
  }
}

let task: Task;
let sim: SimServer;
let proxy: RunningProxy;
let store: Store;
let sink: TeeSink;
let dir: string;
const sessions = new Map<string, ProxySession>();

async function start(): Promise<void> {
  dir = mkdtempSync(path.join(os.tmpdir(), 'of-request-delta-'));
  store = await Store.open(path.join(dir, STORE_FILE));
  sink = new TeeSink(store);
  sim = await startSimServer({ policy: { kind: 'oracle' }, tasks: [task] });
  proxy = await startProxy({
    upstreams: [{ url: sim.url, kind: 'vllm' }],
    sessions: { bySecret: (s) => sessions.get(s) },
    sink,
    logger: new MemoryLogger(),
  });
}

function session(rolloutId: string): string {
  const secret = `secret-${rolloutId}`;
  sessions.set(secret, { rolloutId, runId: 'run', taskId: task.id, secret });
  return `${proxy.url}/s/${secret}`;
}

function openai(rolloutId: string): OpenAI {
  return new OpenAI({ baseURL: `${session(rolloutId)}/v1`, apiKey: 'x', maxRetries: 0 });
}

/** A chat agent loop: every answer and a tool result for it are appended to the history. */
async function chatTurns(client: OpenAI, messages: ChatCompletionMessageParam[], turns: number): Promise<void> {
  for (let turn = 1; turn <= turns; turn++) {
    const completion = await client.chat.completions.create({ model: 'policy', messages, tools: [BASH] });
    const message = completion.choices[0]!.message;
    messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    messages.push(
      message.tool_calls?.[0]
        ? { role: 'tool', tool_call_id: message.tool_calls[0].id, content: `output of turn ${turn}: ${'ok '.repeat(40)}` }
        : { role: 'user', content: `Continue (${turn}).` },
    );
  }
}

/** Rows as stored: how many characters each request row holds and what it refers to. */
async function storedRequests(rolloutId: string): Promise<{ seq: number; chars: number; base: number | null }[]> {
  const db = await SqliteDb.open(path.join(dir, STORE_FILE));
  const rows = await db.all<{ seq: number; chars: number; base: number | null }>(
    'SELECT seq, LENGTH(request) AS chars, request_base_seq AS base FROM calls WHERE rollout_id = ? ORDER BY seq',
    [rolloutId],
  );
  await db.close();
  return rows;
}

/** Every read path gives back each request exactly as the harness sent it, also from a reopened store. */
async function expectExactRequests(rolloutId: string): Promise<RecordedCall[]> {
  await store.flush();
  const recorded = sink.calls.filter((c) => c.rolloutId === rolloutId);
  expect(recorded.length).toBeGreaterThan(1);
  for (const c of recorded) expect(c.requestJson).toBeDefined(); // the proxy kept the harness's own bytes
  const listed = await store.listCalls(rolloutId);
  expect(listed.map((c) => c.request)).toEqual(recorded.map((c) => c.request));
  expect(listed.map((c) => c.seq)).toEqual(recorded.map((c) => c.seq));
  const reopened = await Store.open(path.join(dir, STORE_FILE));
  try {
    for (const c of recorded) expect(await reopened.callRequestJson(rolloutId, c.seq)).toBe(c.requestJson);
    expect((await reopened.listCalls(rolloutId)).map((c) => c.request)).toEqual(recorded.map((c) => c.request));
  } finally {
    await reopened.close();
  }
  return recorded;
}

describe('delta storage of requests, recorded through the proxy', () => {
  beforeAll(() => {
    task = makeTask({ name: 'request-delta', instruction: INSTRUCTION, solve: SOLVE_SH });
  });
  afterAll(() => removeTaskDirs());
  afterEach(async () => {
    await proxy.close();
    await sim.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a multi-turn rollout of each protocol in linear space and reads every request back exactly', async () => {
    await start();
    // Chat Completions
    await chatTurns(
      openai('chat'),
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: INSTRUCTION },
      ],
      8,
    );
    // Responses: Codex's loop, the history sent again as `input` every turn
    const responses = openai('responses');
    const input: ResponseInputItem[] = [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: SYSTEM }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: INSTRUCTION }] },
    ];
    for (let turn = 1; turn <= 6; turn++) {
      const response = await responses.responses.create({
        model: 'policy',
        input,
        tools: [{ type: 'function', name: 'bash', strict: false, parameters: BASH.function.parameters }],
        store: false,
      });
      for (const item of response.output) {
        input.push(item as ResponseInputItem);
        if (item.type === 'function_call') input.push({ type: 'function_call_output', call_id: item.call_id, output: `exit 0 (turn ${turn})` });
      }
      if (!response.output.some((i) => i.type === 'function_call'))
        input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `Go on (${turn}).` }] });
    }
    // Anthropic Messages, streamed and whole, `system` beside `messages`; Claude Code moves its cache marker to the newest message
    const anthropic = new Anthropic({ baseURL: session('anthropic'), apiKey: 'x', maxRetries: 0 });
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: INSTRUCTION, cache_control: { type: 'ephemeral' } }] }];
    for (let turn = 1; turn <= 6; turn++) {
      const params = {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        system: [{ type: 'text' as const, text: SYSTEM }],
        messages: conversation,
        tools: [{ name: 'bash', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }],
      };
      const answer = turn % 2 === 0 ? await anthropic.messages.create(params) : await anthropic.messages.stream(params).finalMessage();
      for (const m of conversation) if (Array.isArray(m.content)) for (const block of m.content) delete (block as { cache_control?: unknown }).cache_control;
      conversation.push({ role: 'assistant', content: answer.content });
      const use = answer.content.find((b) => b.type === 'tool_use');
      conversation.push({
        role: 'user',
        content: use
          ? [{ type: 'tool_result', tool_use_id: use.id, content: `done ${turn} — ünïcödé ✓ 😀`, cache_control: { type: 'ephemeral' } }]
          : [{ type: 'text', text: `More (${turn}) 😀`, cache_control: { type: 'ephemeral' } }],
      });
    }

    for (const [rolloutId, turns] of [
      ['chat', 8],
      ['responses', 6],
      ['anthropic', 6],
    ] as const) {
      const recorded = await expectExactRequests(rolloutId);
      expect(recorded).toHaveLength(turns);
      const rows = await storedRequests(rolloutId);
      expect(rows[0]!.base).toBeNull();
      expect(rows.slice(1).map((r) => r.base)).toEqual(rows.slice(0, -1).map((r) => r.seq)); // each request extends the one before
      // linear: all rows together hold less than twice the last request (stored whole: turns/2 times more)
      const stored = rows.reduce((n, r) => n + r.chars, 0);
      const last = recorded.at(-1)!.requestJson!.length;
      expect(stored).toBeLessThan(2 * last);
      const whole = recorded.reduce((n, c) => n + c.requestJson!.length, 0);
      expect(whole / stored).toBeGreaterThan(turns / 3);
    }
  });

  it('reads back an edited history and a sub-agent interleaving two conversations in one rollout', async () => {
    await start();
    const client = openai('agent');
    const main: ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: INSTRUCTION },
    ];
    const sub: ChatCompletionMessageParam[] = [
      { role: 'system', content: `You are a search sub-agent. ${'Report file paths only. '.repeat(30)}` },
      { role: 'user', content: 'Find the config.' },
    ];
    for (let round = 0; round < 4; round++) {
      await chatTurns(client, main, 1);
      await chatTurns(client, sub, 1);
    }
    // a compaction: the history is replaced by a summary, then the agent goes on from there
    main.splice(1, main.length - 1, { role: 'user', content: `Summary of the work so far: ${'step done; '.repeat(20)}` });
    await chatTurns(client, main, 2);
    // an image shown in the first message: later requests share it through their bases
    const gui: ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on the screen?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ];
    await chatTurns(client, gui, 3);

    const recorded = await expectExactRequests('agent');
    expect(recorded).toHaveLength(8 + 2 + 3);
    const rows = await storedRequests('agent');
    // main and sub alternate (seq 1..8): each call builds on the last call of its own conversation
    expect(rows.slice(2, 8).map((r) => r.base)).toEqual([1, 2, 3, 4, 5, 6]);
    // the compacted request shares the system prompt with main's last call only, the next one extends it
    expect(rows[8]!.base).toBe(7);
    expect(rows[8]!.chars).toBeGreaterThan(recorded[8]!.requestJson!.length - SYSTEM.length - 100);
    expect(rows[9]!.base).toBe(9);
    // `containing` looks through the stored pieces: the image is in the base of the last call, not in its own row
    expect(rows[12]!.base).toBe(12);
    expect(await store.callRequestJson('agent', 13, 'image')).toBe(recorded[12]!.requestJson);
    expect(await store.callRequestJson('agent', 8, 'image')).toBeNull();
    expect(await store.callRequestJson('agent', 99)).toBeUndefined();
    expect(await store.callRequestJson('agent', 99, 'image')).toBeUndefined();
  });
});

describe('sharedPrefixLength', () => {
  const sharedPrefix = (a: string, b: string) => sharedPrefixLength(Buffer.from(a, 'utf16le'), Buffer.from(b, 'utf16le'), b);

  it('never cuts inside a word or a surrogate pair', () => {
    const base = `{"messages":[{"content":"the image ${'x'.repeat(300)} 😀"}]}`;
    expect(sharedPrefix(base, base.replace('image', 'imagine'))).toBe(base.indexOf('image'));
    const emoji = base.indexOf('😀');
    const other = base.slice(0, emoji) + '😁' + base.slice(emoji + 2); // same high surrogate, different low one
    expect(sharedPrefix(base, other)).toBe(emoji); // back before the pair, just after the space
    expect(sharedPrefix(base, base)).toBeLessThanOrEqual(base.length);
    expect(sharedPrefix(base, `${base.slice(0, -2)},{"role":"user"}]}`)).toBe(base.length - 2);
  });

  it('finds the first difference wherever it falls among the compared blocks, in long texts too', () => {
    const long = `{"messages":[${Array.from({ length: 3000 }, (_, i) => `{"role":"user","content":"turn ${i} ünïcode ${'y'.repeat(i % 17)}"}`).join(',')}]}`;
    for (const at of [300, 4095, 4096, 16_383, 16_384, 40_000, long.length - 3]) {
      const changed = `${long.slice(0, at)}#${long.slice(at + 1)}`;
      const expected = (() => {
        let i = at;
        while (i > 0 && !(long.charCodeAt(i - 1) < 128 && /[^A-Za-z0-9_]/.test(long[i - 1]!))) i--;
        return i;
      })();
      expect(sharedPrefix(long, changed)).toBe(expected);
    }
  });
});

describe('request delta writer with reused buffers', () => {
  it('finds the right base in every rollout while the buffers of forgotten requests are reused for new ones', () => {
    const writer = new RequestDeltaWriter();
    const messages = new Map<string, string[]>();
    // 8 rollouts × 12 calls, interleaved: each rollout keeps 4 requests, so 64 are forgotten and their
    // buffers reused; a character left over from another text would move a shared prefix below
    for (let seq = 1; seq <= 12; seq++) {
      for (let r = 0; r < 8; r++) {
        const id = `r${r}`;
        const before = messages.get(id) ?? [JSON.stringify({ role: 'system', content: `agent ${r} ${'ß'.repeat(200)}` })];
        const now = [...before, JSON.stringify({ role: 'user', content: `turn ${seq} of ${r}: ${'z'.repeat(10 * seq + r)}` })];
        const text = `{"messages":[${now.join(',')}],"model":"m${seq % 3}"}`;
        const delta = writer.compact(id, seq, text);
        if (seq === 1) expect(delta).toBeUndefined();
        else {
          const shared = `{"messages":[${before.join(',')}`.length;
          expect(delta).toEqual({ baseSeq: seq - 1, sharedLen: shared, suffix: text.slice(shared) });
        }
        writer.remember(id, seq, text);
        messages.set(id, now);
      }
    }
  });
});

describe('request delta writer with a huge request', () => {
  it('finds the delta of a request of several megabytes', () => {
    const writer = new RequestDeltaWriter();
    const first = `{"messages":[{"role":"user","content":"${'q'.repeat(2_200_000)}"}]}`;
    writer.remember('r', 1, first);
    const next = `${first.slice(0, -2)},{"role":"user","content":"more"}]}`;
    expect(writer.compact('r', 2, next)).toEqual({ baseSeq: 1, sharedLen: first.length - 2, suffix: next.slice(first.length - 2) });
  });
});
