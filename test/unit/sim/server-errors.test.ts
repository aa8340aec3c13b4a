import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { rawHttp } from '../../helpers/raw-http.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';
import { postJson } from './http-client.js';

let server: SimServer;
let chatUrl: string;
const valid = { messages: [{ role: 'user', content: INSTRUCTION }], tools: [OPENAI_BASH] };

beforeAll(async () => {
  server = await startSimServer({ policy: { kind: 'oracle' }, tasks: [makeTask()], maxModelLen: 4096 });
  chatUrl = `${server.url}/chat/completions`;
});
afterAll(async () => {
  await server.close();
  removeTaskDirs();
});

async function expectStillServing(): Promise<void> {
  const { status, body } = await postJson(chatUrl, valid);
  expect(status).toBe(200);
  expect(body.choices[0].message.tool_calls).toHaveLength(1);
}

describe('sim server, bad input', () => {
  it.each([
    ['malformed JSON', '{"messages": [', /malformed JSON body/, null],
    ['an empty body', '', /empty body/, null],
    ['a body that is not an object', '[1, 2]', /request body: .*expected object/, null],
    ['missing messages', { model: 'x' }, /^messages: .*expected array, received undefined/, 'messages'],
    ['messages of the wrong type', { messages: 'hi' }, /^messages: .*expected array, received string/, 'messages'],
    ['no messages', { messages: [] }, /^messages: .*>=1/, 'messages'],
    ['an unknown role', { messages: [{ role: 'robot', content: 'x' }] }, /^messages\[0\]\.role: .*'system'/, 'messages[0].role'],
    [
      'a user message without content',
      { messages: [{ role: 'user' }] },
      /^messages\[0\]\.content: .*expected string or array, received undefined/,
      'messages[0].content',
    ],
    [
      'an unsupported content part',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'input_audio' }] }] },
      /^messages\[0\]\.content\[1\]\.type: .*'text' \| 'image_url'/,
      'messages[0].content[1].type',
    ],
    [
      'tool call arguments that are not a string',
      { messages: [{ role: 'assistant', tool_calls: [{ function: { name: 'bash', arguments: {} } }] }] },
      /arguments: .*expected string/,
      'messages[0].tool_calls[0].function.arguments',
    ],
    ['a wrong type for stream', { ...valid, stream: 'yes' }, /^stream: .*expected boolean/, 'stream'],
    ['n > 1', { ...valid, n: 2 }, /^n: .*one choice per request, got n=2/, 'n'],
    ['top_logprobs without logprobs', { ...valid, top_logprobs: 2 }, /^top_logprobs: needs "logprobs": true/, 'top_logprobs'],
    ['max_tokens of 0', { ...valid, max_tokens: 0 }, /^max_tokens: /, 'max_tokens'],
    ['a prompt past max_model_len', { ...valid, max_tokens: 5000 }, /maximum context length is 4096 tokens/, 'messages'],
  ])('answers 400 for %s, naming the problem', async (_what, body, message, param) => {
    const response = await postJson(chatUrl, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(response.body.error.message).toMatch(message);
    await expectStillServing();
  });

  it('answers 400 for a body not sent as JSON, and 413 for one past the size limit', async () => {
    const text = await fetch(chatUrl, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(valid) });
    expect(text.status).toBe(400);
    expect((await text.json()).error.message).toMatch(/content-type: application\/json/);
    const huge = await postJson(chatUrl, { messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({ type: 'invalid_request_error', code: 'body_too_large' });
    await expectStillServing();
  });

  it('keeps serving after a client hangs up mid-stream', async () => {
    const slow = await startSimServer({ policy: { kind: 'oracle' }, tasks: [makeTask()], tokenDelayMs: 20 });
    try {
      const abort = new AbortController();
      const response = await fetch(`${slow.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...valid, stream: true }),
        signal: abort.signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      abort.abort();
      await expect(reader.read()).rejects.toThrow();
      const after = await postJson(`${slow.url}/chat/completions`, valid);
      expect(after.status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('names what its HTTP parser refuses in its error body, and keeps serving', async () => {
    const { hostname, port } = new URL(server.url);
    const refused = await rawHttp(Number(port), hostname, `POST /v1/chat/completions HTTP/1.1\r\nHost: sim\r\nX-Key: a\x01b\r\n\r\n`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'malformed_http_request' });
    expect(refused.body.error.message).toMatch(/a request header holds a character HTTP does not allow/);
    expect((await fetch(`${server.url}/models`)).status).toBe(200);
  });

  it('answers 404 JSON for unknown routes', async () => {
    for (const [method, route] of [
      ['GET', '/v1/nope'],
      ['POST', '/v1/responses'],
      ['GET', '/v1/chat/completions'],
    ] as const) {
      const response = await fetch(server.url.replace(/\/v1$/, route), {
        method,
        ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      expect(response.status).toBe(404);
      const body = await response.json();
      expect(body.error.message).toContain(`${method} ${route}`);
    }
    await expectStillServing();
  });

  it('answers 409 when a replay runs out of recorded answers', async () => {
    const replay = await startSimServer({ policy: { kind: 'replay', rolloutId: 'r1' }, replayAnswers: [{ content: 'only one', toolCalls: [] }] });
    try {
      const url = `${replay.url}/chat/completions`;
      const first = await postJson(url, { messages: [{ role: 'user', content: 'hi' }] });
      expect(first.status).toBe(200);
      expect(first.headers.get('x-openforge-sim')).toBe('replay');
      expect(first.body.choices[0].message.content).toBe('only one');
      const second = await postJson(url, {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'only one' },
          { role: 'user', content: 'more?' },
        ],
      });
      expect(second.status).toBe(409);
      expect(second.body.error.message).toMatch(/1 recorded answer/);
    } finally {
      await replay.close();
    }
  });
});
