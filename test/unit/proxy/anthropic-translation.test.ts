import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startFixture, type Fixture } from './proxy-fixture.js';

/** Sampling fields the API still accepts (and older Claude Code versions send), no longer typed by SDK 1.16. */
const SAMPLING = { temperature: 0.2, top_p: 0.9, top_k: 40 };

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('Anthropic Messages translation (fake upstream)', () => {
  let fx: Fixture;
  let session: ProxySession;
  let client: Anthropic;
  beforeEach(async () => {
    fx = await startFixture();
    session = fx.session();
    client = new Anthropic({ baseURL: `${fx.proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0 });
  });
  afterEach(async () => {
    await fx.close();
  });

  it('translates system, images, tool history, thinking, tools and sampling fields into one chat request', async () => {
    await client.messages.create({
      model: 'claude-opus-4-1',
      max_tokens: 512,
      ...SAMPLING,
      stop_sequences: ['</answer>'],
      metadata: { user_id: 'someone' },
      system: [
        { type: 'text', text: 'You are a coding agent.' },
        { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
      ],
      tools: [
        { name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
        { type: 'web_search_20250305', name: 'web_search' },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these pictures?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Look first.', signature: 'sig-from-before' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_call_1', name: 'Bash', input: { command: 'ls', flags: ['-l'] } },
            { type: 'tool_use', id: 'toolu_01Real', name: 'Bash', input: { command: 'pwd' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_call_1', content: 'a.png\nb.txt' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_01Real',
              is_error: true,
              content: [
                { type: 'text', text: 'permission denied' },
                { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/AAAA' } },
              ],
            },
            { type: 'text', text: 'Carry on.' },
          ],
        },
      ],
    });

    const sent = fx.fake.requests[0]?.body;
    expect(sent).toMatchObject({
      model: 'claude-opus-4-1',
      max_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop: ['</answer>'],
      tool_choice: 'required',
      parallel_tool_calls: false,
      tools: [
        {
          type: 'function',
          function: { name: 'Bash', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
        },
      ],
    });
    expect(sent?.metadata).toBeUndefined();
    expect(sent?.messages).toEqual([
      { role: 'system', content: 'You are a coding agent.\nBe brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these pictures?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me look.',
        reasoning_content: 'Look first.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls","flags":["-l"]}' } },
          { id: '01Real', type: 'function', function: { name: 'Bash', arguments: '{"command":"pwd"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.png\nb.txt' },
      { role: 'tool', tool_call_id: '01Real', content: 'Error: permission denied' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/AAAA' } },
          { type: 'text', text: 'Carry on.' },
        ],
      },
    ]);
  });

  it('maps each tool_choice, and drops tools and tool_choice when only server tools were declared', async () => {
    const bash = { name: 'Bash', input_schema: { type: 'object' as const, properties: {} } };
    const choices: [Anthropic.ToolChoice, unknown][] = [
      [{ type: 'auto' }, 'auto'],
      [{ type: 'none' }, 'none'],
      [
        { type: 'tool', name: 'Bash' },
        { type: 'function', function: { name: 'Bash' } },
      ],
    ];
    for (const [choice] of choices) {
      await client.messages.create({ model: 'm', max_tokens: 8, tools: [bash], tool_choice: choice, messages: [{ role: 'user', content: 'hi' }] });
    }
    await client.messages.create({
      model: 'm',
      max_tokens: 8,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      tool_choice: { type: 'auto' },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fx.fake.requests.slice(0, 3).map((r) => r.body.tool_choice)).toEqual(choices.map(([, chat]) => chat));
    expect(fx.fake.requests.slice(0, 3).every((r) => r.body.parallel_tool_calls === undefined)).toBe(true);
    expect(fx.fake.requests[3]?.body).not.toHaveProperty('tools');
    expect(fx.fake.requests[3]?.body).not.toHaveProperty('tool_choice');
  });

  it('answers a tool call whole with a toolu_ id, the parsed input and stop_reason tool_use, and maps the id back', async () => {
    fx.fake.script.push({ kind: 'tool', name: 'Bash', arguments: '{"command": "ls -la /workspace"}' });
    const message = await client.messages.create({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'list' }] });
    const produced = fx.fake.produced[0];
    expect(message).toEqual({
      id: expect.stringMatching(/^msg_fake-/),
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'tool_use', id: 'toolu_call_fake_1', name: 'Bash', input: { command: 'ls -la /workspace' } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: produced?.promptTokenIds.length,
        output_tokens: produced?.completionTokenIds.length,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });

    await client.messages.create({
      model: 'claude-x',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'list' },
        { role: 'assistant', content: message.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_call_fake_1', content: 'x' }] },
      ],
    });
    const history = fx.fake.requests[1]?.body.messages as Record<string, unknown>[];
    expect(history[1]).toMatchObject({ content: null, tool_calls: [{ id: 'call_fake_1', function: { arguments: '{"command":"ls -la /workspace"}' } }] });
    expect(history[2]).toEqual({ role: 'tool', tool_call_id: 'call_fake_1', content: 'x' });

    const [first] = await fx.sink.waitFor(2);
    expect(first).toMatchObject({ protocol: 'anthropic', label: 'policy', completionTokenIds: produced?.completionTokenIds, missingTokenIds: false });
    expect(first?.response).toEqual(message);
  });

  it('answers text with end_turn and hides every engine field', async () => {
    const message = await client.messages.create({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake upstream.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(JSON.stringify(message)).not.toMatch(/token_ids|logprobs|prompt_logprobs|kv_transfer_params|chatcmpl/);
    expect(fx.fake.requests[0]?.body).toMatchObject({ return_token_ids: true, logprobs: true });
  });

  it('serves ?beta=true and authenticates with x-api-key on the bare /v1 path', async () => {
    const bare = new Anthropic({ baseURL: fx.proxy.url, apiKey: session.secret, maxRetries: 0 });
    const message = await bare.beta.messages.create({ model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake upstream.' }]);
    expect(fx.fake.requests[0]?.headers['x-api-key']).toBeUndefined();
    const [call] = await fx.sink.waitFor(1);
    expect(call?.rolloutId).toBe(session.rolloutId);

    const wrongKey = new Anthropic({ baseURL: fx.proxy.url, apiKey: 'not-a-session', maxRetries: 0 });
    const error = await wrongKey.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid session secret' },
    });
  });
});

describe('Anthropic Messages: what Claude Code 2.1.332 really sends', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('accepts its recorded request, with a system message inside messages kept in place', async () => {
    const recorded = JSON.parse(readFileSync('test/fixtures/harness-requests/claude-code-2.1.332-messages.json', 'utf8'));
    const body = recorded.body ?? recorded;
    const session = fx.session();
    const res = await fetch(`${fx.proxy.url}/s/${session.secret}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...body, stream: false }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = fx.fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    const systemInside = body.messages.findIndex((m: { role: string }) => m.role === 'system');
    expect(systemInside).toBeGreaterThan(-1);
    const roles = sent.messages.map((m) => m.role);
    expect(roles.filter((r) => r === 'system').length).toBeGreaterThanOrEqual(2); // the top-level system and the one inside
    expect(sent.messages.some((m) => m.role === 'system' && typeof m.content === 'string' && m.content.includes('Environment'))).toBe(true);
  });
});
