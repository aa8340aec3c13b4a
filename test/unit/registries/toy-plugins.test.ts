import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerProtocol } from '../../../src/proxy/protocols/registry.js';
import type { PreparedCall, Protocol, SseEvent } from '../../../src/proxy/protocols/types.js';
import { openAIErrorBody } from '../../../src/proxy/http/http-error.js';
import { Store } from '../../../src/store/store.js';
import { answerOf } from '../../../src/trajectory/call-content.js';
import { exportRun } from '../../../src/trajectory/export.js';
import { exporters, registerExporter } from '../../../src/trajectory/exporters/registry.js';
import type { ChatBody } from '../../../src/engine-wire/chat-wire.js';
import { startTestStandaloneProxy } from '../proxy/proxy-fixture.js';

/**
 * A protocol and an export format that exist only in this test, added through their registries alone:
 * no file of the project names them. The proxy serves the protocol, the trajectory builder and the
 * inspector read its records, and `openforge export` writes the format.
 */
const completionOf = (chat: ChatBody): string => String((chat.choices?.[0] as { message?: { content?: unknown } } | undefined)?.message?.content ?? '');

const toyProtocol: Protocol = {
  name: 'toy',
  endpoints: [
    {
      name: 'toy',
      paths: ['/toy/complete'],
      prepare(body): PreparedCall {
        const { model, prompt } = body as { model: string; prompt: string };
        let text = '';
        return {
          model,
          stream: false,
          label: 'policy',
          upstreamRequest: { model, messages: [{ role: 'user', content: prompt }] },
          translateResponse: (upstream) => ({ completion: completionOf(upstream) }),
          streamTranslator: () => ({
            push(chunk: ChatBody): SseEvent[] {
              const delta = String((chunk.choices?.[0] as { delta?: { content?: unknown } } | undefined)?.delta?.content ?? '');
              text += delta;
              return delta ? [{ data: JSON.stringify({ delta }) }] : [];
            },
            end: () => [{ data: '[DONE]' }],
            fail: (message: string) => [{ data: JSON.stringify({ error: message }) }],
            assembled: () => ({ completion: text }),
          }),
        };
      },
      errorBody: openAIErrorBody,
    },
  ],
  records: {
    requestMessages: (request) => [{ role: 'user', content: (request as { prompt?: string }).prompt ?? '' }],
    answerMessages: (response) => (response ? [{ role: 'assistant', content: (response as { completion: string }).completion }] : []),
    answerView: (response) => ({ text: (response as { completion?: string } | null)?.completion ?? '', toolCalls: [] }),
    toolResults: () => [],
    toolNames: () => [],
    usage: () => undefined,
    messageList: () => undefined,
    imageUrl: () => undefined,
    editableAnswer: (response) => ({ content: (response as { completion?: string } | null)?.completion ?? '' }),
    recordedAnswer: (response) => ({ content: (response as { completion?: string } | null)?.completion ?? null }),
    answerAsChat: () => undefined,
    answerShape: 'an assistant message such as {"content": "…"}',
  },
};

describe('plugins added through the registries alone', () => {
  it('a toy protocol is served, recorded, read by the inspector and exported as veRL samples; a toy format is written by export', async () => {
    registerProtocol(toyProtocol);
    expect(() => registerProtocol(toyProtocol)).toThrow(/already registered/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-toy-'));
    const dbFile = path.join(dir, 'calls.db');
    const proxy = await startTestStandaloneProxy({ dbFile, open: true, adminToken: 'admin' });
    const ask = (prompt: string) =>
      fetch(`${proxy.proxy.url}/v1/toy/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer open-toy', 'x-openforge-task': 'hello' },
        body: JSON.stringify({ model: 'policy', prompt }),
      });
    const answered = await ask('Task hello: say that it is done.');
    expect(answered.status).toBe(200);
    const { completion } = (await answered.json()) as { completion: string };
    expect(completion.length).toBeGreaterThan(0);
    await fetch(`${proxy.proxy.url}/control/rollouts/open-toy/reward`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer admin' },
      body: JSON.stringify({ reward: 1 }),
    });
    await proxy.close();

    const store = await Store.open(dbFile);
    const [call] = await store.listCalls('open-toy');
    await store.close();
    expect(call?.protocol).toBe('toy');
    expect(answerOf(call!.response, 'toy')).toEqual({ text: completion, toolCalls: [] });

    const verl = await exportRun(dbFile, { format: 'verl', out: path.join(dir, 'verl.jsonl'), workers: 0 });
    expect(verl.rows).toBe(1);
    const [sample] = readFileSync(verl.file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { response_ids: number[]; reward_score: number });
    expect(sample!.response_ids.length).toBeGreaterThan(0);
    expect(sample!.reward_score).toBe(1);

    registerExporter({
      name: 'lines',
      description: 'one line per rollout: its id and reward',
      fileTypes: ['txt'],
      async write(job) {
        writeFileSync(job.file, job.rollouts.map((r) => `${r.id} ${r.reward}\n`).join(''));
        for (const _ of job.rollouts) job.countRollout(0, 1);
        job.report.rows = job.rollouts.length;
      },
    });
    expect(exporters().map((e) => e.name)).toContain('lines');
    const lines = await exportRun(dbFile, { format: 'lines' });
    expect(lines.file).toMatch(/lines\.txt$/);
    expect(readFileSync(lines.file, 'utf8')).toBe('open-toy 1\n');
    await expect(exportRun(dbFile, { format: 'lines', out: path.join(dir, 'x.jsonl') })).rejects.toThrow(/--format lines writes txt only/);
  });
});
