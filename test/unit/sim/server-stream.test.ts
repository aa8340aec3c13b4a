import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import type { Policy, PolicyAnswer } from '../../../src/sim/policies/types.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { IM_END_ID, THINK_START_ID } from '../../../src/families/chatml/special-tokens.js';
import { tokenText } from '../../../src/families/chatml/tokenizer.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';
import { postJson, postStream } from './http-client.js';

/** Answers with reasoning, content and two tool calls, to exercise every kind of delta. */
const RICH_ANSWER: PolicyAnswer = {
  content: 'Checking both files — ✓ then ✗.',
  reasoning: 'Two reads are independent, so issue them together.',
  toolCalls: [
    { name: 'bash', arguments: '{"command":"cat a.txt"}' },
    { name: 'bash', arguments: '{"command":"wc -l b.txt 😀"}' },
  ],
};
const richPolicy: Policy = { name: 'rich', respond: () => RICH_ANSWER };

let oracle: SimServer;
let rich: SimServer;
const task = makeTask();
const messages: ChatMessage[] = [{ role: 'user', content: INSTRUCTION }];
const asked = { messages, tools: [OPENAI_BASH], return_token_ids: true, logprobs: true, stream_options: { include_usage: true } };

beforeAll(async () => {
  oracle = await startSimServer({ policy: { kind: 'oracle' }, tasks: [task] });
  rich = await startSimServer({ policy: richPolicy });
});
afterAll(async () => {
  await Promise.all([oracle.close(), rich.close()]);
  removeTaskDirs();
});

/** Rebuilds the message a client assembles from the deltas. */
function assemble(events: any[]): { content: string; reasoning: string; toolCalls: { id: string; name: string; arguments: string }[] } {
  const result = { content: '', reasoning: '', toolCalls: [] as { id: string; name: string; arguments: string }[] };
  for (const event of events) {
    const delta = event?.choices?.[0]?.delta;
    if (!delta) continue;
    result.content += delta.content ?? '';
    result.reasoning += delta.reasoning_content ?? '';
    for (const call of delta.tool_calls ?? []) {
      if (call.id) result.toolCalls[call.index] = { id: call.id, name: call.function.name, arguments: call.function.arguments };
      else (result.toolCalls[call.index] as { arguments: string }).arguments += call.function.arguments;
    }
  }
  return result;
}

describe('sim server, streaming', () => {
  it('streams vLLM-style chunks whose token ids add up to the non-streamed ids', async () => {
    const headers = { 'x-openforge-task': 'hello-file' };
    const whole = (await postJson(`${oracle.url}/chat/completions`, asked, headers)).body;
    const { status, headers: responseHeaders, events } = await postStream(`${oracle.url}/chat/completions`, { ...asked, stream: true }, headers);
    expect(status).toBe(200);
    expect(responseHeaders.get('content-type')).toMatch(/^text\/event-stream/);
    expect(responseHeaders.get('x-openforge-sim')).toBe('oracle');

    const [first, ...rest] = events;
    expect(first.object).toBe('chat.completion.chunk');
    expect(first.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(first.prompt_token_ids).toEqual(whole.prompt_token_ids);
    expect(events.at(-1)).toBe('[DONE]');
    const usage = events.at(-2);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual(whole.usage);
    const chunks = rest.slice(0, -2);
    for (const chunk of chunks) expect(chunk).not.toHaveProperty('prompt_token_ids');
    expect(first.id).toMatch(/^chatcmpl-/);
    expect(events.slice(0, -1).every((e) => e.id === first.id && e.model === 'sim-oracle')).toBe(true);

    const ids = chunks.flatMap((c) => c.choices[0].token_ids);
    expect(ids).toEqual(whole.choices[0].token_ids);
    const logprobs = chunks.flatMap((c) => c.choices[0].logprobs?.content ?? []);
    expect(logprobs).toEqual(whole.choices[0].logprobs.content);
    for (const chunk of chunks) expect(chunk.choices[0].logprobs?.content?.length ?? 0).toBe(chunk.choices[0].token_ids.length);

    const finish = chunks.at(-1);
    expect(finish.choices[0].finish_reason).toBe('tool_calls');
    expect(finish.choices[0].token_ids.at(-1)).toBe(IM_END_ID);
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);

    const message = assemble(events);
    expect(message.toolCalls).toHaveLength(1);
    expect(message.toolCalls[0]?.id).toMatch(/^call_/);
    expect(message.toolCalls[0]?.name).toBe('bash');
    expect(message.toolCalls[0]?.arguments).toBe(whole.choices[0].message.tool_calls[0].function.arguments);
    // The name comes in one delta with empty arguments; then one chunk per argument token.
    expect(chunks[0].choices[0].delta.tool_calls[0]).toEqual({
      index: 0,
      id: message.toolCalls[0]?.id,
      type: 'function',
      function: { name: 'bash', arguments: '' },
    });
    expect(chunks[1].choices[0].delta.tool_calls[0]).toEqual({ index: 0, function: { arguments: tokenText(chunks[1].choices[0].token_ids[0]) } });
  });

  it('streams reasoning, content and several tool calls, one chunk per token', async () => {
    const whole = (await postJson(`${rich.url}/chat/completions`, asked)).body;
    expect(whole.choices[0].message).toMatchObject({ content: RICH_ANSWER.content, reasoning_content: RICH_ANSWER.reasoning });
    const { events } = await postStream(`${rich.url}/chat/completions`, { ...asked, stream: true });
    const chunks = events.slice(1, -2);
    expect(chunks.flatMap((c) => c.choices[0].token_ids)).toEqual(whole.choices[0].token_ids);
    expect(chunks[0].choices[0].token_ids[0]).toBe(THINK_START_ID);

    const message = assemble(events);
    expect(message.reasoning).toBe(RICH_ANSWER.reasoning);
    expect(message.content).toBe(RICH_ANSWER.content);
    expect(message.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(RICH_ANSWER.toolCalls);

    const contentChunks = chunks.filter((c) => c.choices[0].delta.content !== undefined);
    for (const chunk of contentChunks) expect(chunk.choices[0].delta.content).toBe(tokenText(chunk.choices[0].token_ids.at(-1)));
    expect(contentChunks.length).toBeGreaterThan(5);
  });

  it('streams without token ids or usage when not asked', async () => {
    const { events } = await postStream(`${rich.url}/chat/completions`, { messages, stream: true });
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.at(-2).choices[0].finish_reason).toBe('tool_calls');
    for (const event of events.slice(0, -1)) {
      expect(event).not.toHaveProperty('prompt_token_ids');
      expect(event).not.toHaveProperty('usage');
      expect(event.choices[0]).not.toHaveProperty('token_ids');
      expect(event.choices[0].logprobs).toBeNull();
    }
  });

  it('truncates a stream at max_tokens like the non-streamed answer', async () => {
    const request = { ...asked, max_tokens: 25 };
    const whole = (await postJson(`${rich.url}/chat/completions`, request)).body;
    const { events } = await postStream(`${rich.url}/chat/completions`, { ...request, stream: true });
    expect(events.slice(1, -2).flatMap((c) => c.choices[0].token_ids)).toEqual(whole.choices[0].token_ids);
    expect(events.at(-3).choices[0].finish_reason).toBe('length');
    expect(events.at(-2).usage.completion_tokens).toBe(25);
  });

  it('closes promptly while a stream is still running', async () => {
    const slow = await startSimServer({ policy: richPolicy, tokenDelayMs: 200 });
    const response = await fetch(`${slow.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages, stream: true }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const started = performance.now();
    await slow.close();
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(reader.read()).rejects.toThrow();
  });

  it('paces chunks by tokenDelayMs', async () => {
    const slow = await startSimServer({ policy: richPolicy, tokenDelayMs: 5 });
    try {
      const started = performance.now();
      const { events } = await postStream(`${slow.url}/chat/completions`, { messages, stream: true });
      const elapsed = performance.now() - started;
      const paced = events.length - 2; // every chunk after the role chunk, before [DONE]
      expect(elapsed).toBeGreaterThanOrEqual(paced * 5 * 0.9);
    } finally {
      await slow.close();
    }
  });

  it("with prefillTokensPerSecond, the first token of a stream and a whole answer wait for the prompt's prefill", async () => {
    const { body: tokenized } = await postJson(`${rich.url.replace(/\/v1$/, '')}/tokenize`, { messages, tools: [OPENAI_BASH] });
    const prefillMs = 300;
    const prefilled = await startSimServer({ policy: richPolicy, prefillTokensPerSecond: tokenized.count / (prefillMs / 1000) });
    try {
      const started = performance.now();
      const response = await fetch(`${prefilled.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages, tools: [OPENAI_BASH], stream: true }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      expect(performance.now() - started).toBeGreaterThanOrEqual(prefillMs * 0.95);
      await reader.cancel();

      const wholeStarted = performance.now();
      const whole = await postJson(`${prefilled.url}/chat/completions`, { messages, tools: [OPENAI_BASH] });
      expect(whole.status).toBe(200);
      expect(performance.now() - wholeStarted).toBeGreaterThanOrEqual(prefillMs * 0.95);
      // the wait is the prompt's: a prompt twice as long waits twice as long
      const twice = [...messages, { role: 'assistant' as const, content: 'ok' }, ...messages];
      const { body: longer } = await postJson(`${rich.url.replace(/\/v1$/, '')}/tokenize`, { messages: twice, tools: [OPENAI_BASH] });
      const longStarted = performance.now();
      await postJson(`${prefilled.url}/chat/completions`, { messages: twice, tools: [OPENAI_BASH] });
      expect(performance.now() - longStarted).toBeGreaterThanOrEqual(((prefillMs * longer.count) / tokenized.count) * 0.95);
    } finally {
      await prefilled.close();
    }
  });

  it('with decodeTokensPerSecond, streams decoded together share the engine: each token takes longer', async () => {
    const { events } = await postStream(`${rich.url}/chat/completions`, { messages, stream: true });
    const steps = events.length - 2; // one decode step before each chunk after the role chunk, and one before it
    const rate = 1000; // tokens a second: one stream alone is at 1 ms a step, four at 4 ms
    const shared = await startSimServer({ policy: richPolicy, decodeTokensPerSecond: rate });
    try {
      const timed = async () => {
        const started = performance.now();
        await postStream(`${shared.url}/chat/completions`, { messages, stream: true });
        return performance.now() - started;
      };
      const together = await Promise.all([timed(), timed(), timed(), timed()]);
      // every step read while the four were in flight lasts 4 ms; the last ones may see fewer
      for (const elapsed of together) expect(elapsed).toBeGreaterThanOrEqual(steps * 4 * 0.75);
      expect(await timed()).toBeGreaterThanOrEqual(steps * 1 * 0.9);
    } finally {
      await shared.close();
    }
  });

  it('refuses a prefill or decode rate that is not above 0', async () => {
    await expect(startSimServer({ policy: richPolicy, prefillTokensPerSecond: 0 })).rejects.toThrow(
      /prefillTokensPerSecond: use a number of tokens a second above 0, got 0/,
    );
    await expect(startSimServer({ policy: richPolicy, decodeTokensPerSecond: -1 })).rejects.toThrow(
      /decodeTokensPerSecond: use a number of tokens a second above 0, got -1/,
    );
  });

  it('with paceWholeAnswers, takes as long for a whole answer as for its stream, and answers the same', async () => {
    const instant = await startSimServer({ policy: richPolicy });
    const paced = await startSimServer({ policy: richPolicy, tokenDelayMs: 5, paceWholeAnswers: true });
    try {
      const { events } = await postStream(`${paced.url}/chat/completions`, { messages, stream: true });
      const chunks = events.length - 2;
      const ask = async (url: string) => {
        const started = performance.now();
        const response = await fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messages }),
        });
        return { body: (await response.json()) as { choices: { message: unknown }[] }, elapsed: performance.now() - started };
      };
      const whole = await ask(paced.url);
      expect(whole.elapsed).toBeGreaterThanOrEqual(chunks * 5 * 0.9);
      // tool call ids are fresh per answer
      const shape = (body: { choices: { message: unknown }[] }) => JSON.stringify(body.choices[0]?.message).replace(/"id":"[^"]+"/g, '"id":"…"');
      expect(shape(whole.body)).toBe(shape((await ask(instant.url)).body));
    } finally {
      await Promise.all([instant.close(), paced.close()]);
    }
  });
});
