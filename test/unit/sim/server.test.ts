import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import { renderCompletion, renderPrompt } from '../../../src/sim/chat-template.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { decode } from '../../../src/families/chatml/tokenizer.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';
import { postJson } from './http-client.js';

let server: SimServer;
let chatUrl: string;
const task = makeTask();
const other = makeTask({ name: 'other-task', instruction: 'Delete every file in /tmp/scratch.' });
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are a careful agent.' },
  { role: 'user', content: INSTRUCTION },
];

beforeAll(async () => {
  server = await startSimServer({ policy: { kind: 'oracle' }, tasks: [task, other] });
  chatUrl = `${server.url}/chat/completions`;
});
afterAll(async () => {
  await server.close();
  removeTaskDirs();
});

describe('sim server, non-streaming', () => {
  it('answers a vLLM-shaped chat.completion with token ids and logprobs', async () => {
    const { status, headers, body } = await postJson(
      chatUrl,
      { model: 'anything', messages, tools: [OPENAI_BASH], return_token_ids: true, logprobs: true, top_logprobs: 3 },
      { 'x-openforge-task': 'hello-file' },
    );
    expect(status).toBe(200);
    expect(headers.get('x-openforge-sim')).toBe('oracle');
    expect(body).toMatchObject({ object: 'chat.completion', model: 'sim-oracle', system_fingerprint: 'openforge-sim' });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(typeof body.created).toBe('number');

    const choice = body.choices[0];
    expect(choice).toMatchObject({ index: 0, finish_reason: 'tool_calls', stop_reason: null });
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls[0];
    expect(call.id).toMatch(/^call_/);
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('bash');
    expect(JSON.parse(call.function.arguments).command).toContain('echo hello > /workspace/hello.txt');

    expect(body.prompt_token_ids).toEqual(renderPrompt(messages, [OPENAI_BASH]));
    expect(choice.token_ids).toEqual(renderCompletion({ content: null, toolCalls: [{ name: 'bash', arguments: call.function.arguments }] }));
    expect(body.usage).toMatchObject({
      prompt_tokens: body.prompt_token_ids.length,
      completion_tokens: choice.token_ids.length,
      total_tokens: body.prompt_token_ids.length + choice.token_ids.length,
    });

    const entries = choice.logprobs.content;
    expect(entries).toHaveLength(choice.token_ids.length);
    expect(entries.map((e: any) => e.token).join('')).toBe(decode(choice.token_ids));
    for (const entry of entries) {
      expect(entry.logprob).toBeGreaterThan(-3);
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.bytes).toEqual([...Buffer.from(entry.token, 'utf8')]);
      expect(entry.top_logprobs).toHaveLength(3);
      expect(entry.top_logprobs.map((t: any) => t.token)).toContain(entry.token);
      const logprobs = entry.top_logprobs.map((t: any) => t.logprob);
      expect([...logprobs].sort((a, b) => b - a)).toEqual(logprobs);
    }
  });

  it('gives the same tokens and logprobs for the same request', async () => {
    const request = { messages, tools: [OPENAI_BASH], return_token_ids: true, logprobs: true };
    const a = (await postJson(chatUrl, request, { 'x-openforge-task': 'hello-file' })).body;
    const b = (await postJson(chatUrl, request, { 'x-openforge-task': 'hello-file' })).body;
    expect(b.choices[0].token_ids).toEqual(a.choices[0].token_ids);
    expect(b.choices[0].logprobs).toEqual(a.choices[0].logprobs);
  });

  it('leaves out token ids and logprobs nobody asked for', async () => {
    const { body } = await postJson(chatUrl, { messages, tools: [OPENAI_BASH] }, { 'x-openforge-task': 'hello-file' });
    expect(body).not.toHaveProperty('prompt_token_ids');
    expect(body.choices[0]).not.toHaveProperty('token_ids');
    expect(body.choices[0].logprobs).toBeNull();
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('renders tokens as token_id:<id> when asked', async () => {
    const { body } = await postJson(
      chatUrl,
      { messages, tools: [OPENAI_BASH], logprobs: true, return_token_ids: true, return_tokens_as_token_ids: true },
      { 'x-openforge-task': 'hello-file' },
    );
    expect(body.choices[0].logprobs.content.map((e: any) => e.token)).toEqual(body.choices[0].token_ids.map((id: number) => `token_id:${id}`));
  });

  it('finds the task from its instruction when no header names it', async () => {
    const { status, body } = await postJson(chatUrl, {
      messages: [{ role: 'user', content: `Your task:\n\n  ${INSTRUCTION.replace(/ /g, '\n')}\n\nGood luck.` }],
      tools: [OPENAI_BASH],
    });
    expect(status).toBe(200);
    expect(body.choices[0].message.tool_calls[0].function.arguments).toContain('echo hello');
  });

  it('answers 400 naming the header when it cannot tell the task', async () => {
    const unknown = await postJson(chatUrl, { messages: [{ role: 'user', content: 'Something else entirely.' }], tools: [OPENAI_BASH] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.type).toBe('invalid_request_error');
    expect(unknown.body.error.message).toMatch(/x-openforge-task/);
    const wrongId = await postJson(chatUrl, { messages, tools: [OPENAI_BASH] }, { 'x-openforge-task': 'nope' });
    expect(wrongId.status).toBe(400);
    expect(wrongId.body.error.message).toMatch(/"nope".*hello-file, other-task/);
  });

  it('finishes the episode with a text answer', async () => {
    const args = (await postJson(chatUrl, { messages, tools: [OPENAI_BASH] }, { 'x-openforge-task': 'hello-file' })).body.choices[0].message.tool_calls[0]
      .function.arguments;
    const history: ChatMessage[] = [...messages];
    for (const [i, step] of ['one', 'two'].entries()) {
      history.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: step, type: 'function', function: { name: 'bash', arguments: i === 0 ? args : '{}' } }],
      });
      history.push({ role: 'tool', tool_call_id: step, content: '' });
    }
    const { body } = await postJson(chatUrl, { messages: history, tools: [OPENAI_BASH], return_token_ids: true }, { 'x-openforge-task': 'hello-file' });
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.choices[0].message.content).toMatch(/^Done: /);
    expect(body.choices[0].message.tool_calls).toEqual([]);
    expect(decode(body.choices[0].token_ids)).toBe(`${body.choices[0].message.content}<|im_end|>`);
  });

  it('cuts the completion at max_tokens with finish_reason "length"', async () => {
    const full = (await postJson(chatUrl, { messages, tools: [OPENAI_BASH], return_token_ids: true }, { 'x-openforge-task': 'hello-file' })).body;
    for (const limitKey of ['max_tokens', 'max_completion_tokens']) {
      const { body } = await postJson(
        chatUrl,
        { messages, tools: [OPENAI_BASH], return_token_ids: true, [limitKey]: 20 },
        { 'x-openforge-task': 'hello-file' },
      );
      expect(body.choices[0].finish_reason).toBe('length');
      expect(body.choices[0].token_ids).toEqual(full.choices[0].token_ids.slice(0, 20));
      expect(body.usage.completion_tokens).toBe(20);
      const partial = body.choices[0].message.tool_calls[0].function.arguments;
      expect(full.choices[0].message.tool_calls[0].function.arguments.startsWith(partial)).toBe(true);
      expect(partial.length).toBeLessThan(full.choices[0].message.tool_calls[0].function.arguments.length);
    }
  });

  it('tokenizes at /tokenize as vLLM does: the prompt a completion for the same messages and tools is given', async () => {
    const tokenizeUrl = server.url.replace(/\/v1$/, '/tokenize');
    const completion = await postJson(chatUrl, { model: 'm', messages, tools: [OPENAI_BASH], return_token_ids: true }, { 'x-openforge-task': 'hello-file' });
    const tokenized = await postJson(tokenizeUrl, { messages, tools: [OPENAI_BASH], add_generation_prompt: true });
    expect(tokenized.status).toBe(200);
    expect(tokenized.body).toEqual({
      count: completion.body.usage.prompt_tokens,
      max_model_len: expect.any(Number),
      tokens: completion.body.prompt_token_ids,
      token_strs: null,
    });
    // without the assistant turn's opening: a prefix of it
    const bare = await postJson(tokenizeUrl, { messages, tools: [OPENAI_BASH], add_generation_prompt: false });
    expect(bare.body.count).toBeLessThan(tokenized.body.count);
    expect(tokenized.body.tokens.slice(0, bare.body.count)).toEqual(bare.body.tokens);
    // a plain text prompt
    const text = await postJson(tokenizeUrl, { prompt: 'hello world' });
    expect(decode(text.body.tokens)).toBe('hello world');
    const bad = await postJson(tokenizeUrl, { messages: 'hi' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^messages: /);
  });

  it('lists the model and answers health checks', async () => {
    const models = await (await fetch(`${server.url}/models`)).json();
    expect(models).toEqual({
      object: 'list',
      data: [expect.objectContaining({ id: 'sim-oracle', object: 'model', owned_by: 'openforge-sim', max_model_len: expect.any(Number) })],
    });
    const health = await fetch(server.url.replace(/\/v1$/, '/health'));
    expect(health.status).toBe(200);
  });
});
