import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import type { Policy } from '../../../src/sim/policies/types.js';
import { startProxy } from '../../../src/proxy/server.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import { MemoryLogger, MemorySink, USER_MESSAGES } from './proxy-fixture.js';

/** Answers every call with one bash tool call, then text once a tool result is in the conversation. */
const scriptedPolicy: Policy = {
  name: 'proxy-test-script',
  respond: (request) =>
    request.messages.some((m) => m.role === 'tool')
      ? { content: 'All done.', toolCalls: [] }
      : { content: null, toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo hi > out.txt' }) }] },
};

const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  },
];

describe('against the built-in sim upstream', () => {
  let sim: SimServer;
  let proxy: RunningProxy;
  afterEach(async () => {
    await proxy.close();
    await sim.close();
  });

  /** The sim with `scriptedPolicy`, a proxy in front of it recording to memory, and an SDK client for one rollout. */
  async function startSimAndProxy(rolloutId: string) {
    sim = await startSimServer({ policy: scriptedPolicy });
    const sink = new MemorySink();
    const session = { rolloutId, runId: 'run', taskId: `task-of-${rolloutId}`, secret: `secret-of-${rolloutId}` };
    proxy = await startProxy({
      upstreams: [{ url: sim.url, kind: 'vllm' }],
      sessions: { bySecret: (s) => (s === session.secret ? session : undefined) },
      sink,
      logger: new MemoryLogger(),
    });
    const client = new OpenAI({ baseURL: `${proxy.url}/s/${session.secret}/v1`, apiKey: 'x', maxRetries: 0 });
    return { sink, client };
  }

  it('records the token ids the sim generates, streamed and whole', async () => {
    const { sink, client } = await startSimAndProxy('r-sim');

    const first = await client.chat.completions.stream({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS }).finalChatCompletion();
    const toolCall = first.choices[0]?.message.tool_calls?.[0];
    expect(toolCall?.type === 'function' && JSON.parse(toolCall.function.arguments)).toEqual({ command: 'echo hi > out.txt' });

    const followUp = [...USER_MESSAGES, first.choices[0]!.message, { role: 'tool' as const, tool_call_id: toolCall?.id ?? '', content: '' }];
    const second = await client.chat.completions.create({ model: 'policy', messages: followUp, tools: TOOLS });
    expect(second.choices[0]?.message.content).toBe('All done.');

    // the same requests sent straight to the sim give the ids the proxy must have recorded
    const direct = await Promise.all(
      [USER_MESSAGES, followUp].map(async (messages) => {
        const res = await fetch(`${sim.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'policy', messages, tools: TOOLS, return_token_ids: true, logprobs: true }),
        });
        return (await res.json()) as { prompt_token_ids: number[]; choices: { token_ids: number[] }[] };
      }),
    );
    const calls = await sink.waitFor(2);
    calls.forEach((call, i) => {
      expect(call.missingTokenIds).toBe(false);
      expect(call.promptTokenIds && Array.from(call.promptTokenIds)).toEqual(direct[i]?.prompt_token_ids);
      expect(call.completionTokenIds).toEqual(direct[i]?.choices[0]?.token_ids);
      expect(call.logprobs).toHaveLength(call.completionTokenIds?.length ?? -1);
    });
    // multi-turn prefix: the second prompt starts with the first prompt plus its completion
    const [one, two] = calls;
    expect(Array.from(two?.promptTokenIds ?? []).slice(0, (one?.promptTokenIds?.length ?? 0) + (one?.completionTokenIds?.length ?? 0))).toEqual([
      ...(one?.promptTokenIds ?? []),
      ...(one?.completionTokenIds ?? []),
    ]);
  });

  it('records the ids of a long prompt exactly, read from the bytes of each answer, streamed and whole', async () => {
    const { sink, client } = await startSimAndProxy('r-long');
    // ~30 KB of history: the answer's prompt_token_ids run to well over 32 KB of JSON, streamed or not
    const messages = [{ role: 'user' as const, content: 'Résumé of the log — ✓ passed, ✗ failed:\n'.repeat(700) }];
    await client.chat.completions.stream({ model: 'policy', messages, tools: TOOLS }).finalChatCompletion();
    await client.chat.completions.create({ model: 'policy', messages, tools: TOOLS });
    const res = await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages, tools: TOOLS, return_token_ids: true }),
    });
    const direct = (await res.json()) as { prompt_token_ids: number[] };
    expect(JSON.stringify(direct.prompt_token_ids).length).toBeGreaterThan(64 * 1024);
    for (const call of await sink.waitFor(2)) {
      expect(call.promptTokenIds).toBeInstanceOf(Int32Array);
      expect(Array.from(call.promptTokenIds ?? [])).toEqual(direct.prompt_token_ids);
      expect(call.missingTokenIds).toBe(false);
    }
  });
});
