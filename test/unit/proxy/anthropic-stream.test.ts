import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { ChatBody } from '../../../src/engine-wire/chat-wire.js';
import { ThinkingSignature } from '../../../src/proxy/protocols/anthropic/ids.js';
import { anthropicResponse } from '../../../src/proxy/protocols/anthropic/response.js';
import { AnthropicStreamTranslator } from '../../../src/proxy/protocols/anthropic/stream.js';
import { deferred, startFixture, type Fixture } from './proxy-fixture.js';

function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): ChatBody {
  return { id: 'chatcmpl-s1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, ...extra }] };
}

/** Reasoning, then text, then two parallel tool calls with fragmented arguments, as vLLM streams them. */
const CHUNKS: ChatBody[] = [
  { ...chunk({ role: 'assistant', content: '' }), prompt_token_ids: [1, 2, 3, 4, 5] },
  chunk({ reasoning_content: 'Think' }),
  chunk({ reasoning_content: 'ing.' }),
  chunk({ content: 'I will run ' }),
  chunk({ content: 'two commands.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'Bash', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: ' "ls"}' } }] }),
  chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'Read', arguments: '{"file_path": "/a"}' } }] }),
  chunk({}, 'tool_calls', { stop_reason: null }),
  { id: 'chatcmpl-s1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 21, total_tokens: 26 } },
];

function translate(chunks: ChatBody[]) {
  const translator = new AnthropicStreamTranslator('claude-x');
  const sse = [...chunks.flatMap((c) => translator.push(structuredClone(c))), ...translator.end()];
  return { translator, sse, events: sse.map((e) => JSON.parse(e.data) as { type: string; index?: number; [key: string]: unknown }) };
}

describe('Anthropic stream translation', () => {
  it('emits message_start, one block per kind and tool call in order, then message_delta and message_stop', () => {
    const { sse, events } = translate(CHUNKS);
    expect(sse.every((e, i) => e.event === events[i]?.type)).toBe(true);
    const signature = ThinkingSignature.of('Thinking.');
    expect(events).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_s1',
          type: 'message',
          role: 'assistant',
          model: 'claude-x',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Think' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'ing.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'I will run ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'two commands.' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_call_a', name: 'Bash', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command":' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: ' "ls"}' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_call_b', name: 'Read', input: {} } },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"file_path": "/a"}' } },
      { type: 'content_block_stop', index: 3 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 21, input_tokens: 5 } },
      { type: 'message_stop' },
    ]);
  });

  it('assembles the same message the whole-answer translation gives', () => {
    const { translator } = translate(CHUNKS);
    const whole: ChatBody = {
      id: 'chatcmpl-s1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            reasoning_content: 'Thinking.',
            content: 'I will run two commands.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'Bash', arguments: '{"command": "ls"}' } },
              { id: 'call_b', type: 'function', function: { name: 'Read', arguments: '{"file_path": "/a"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 21, total_tokens: 26 },
    };
    expect(translator.assembled()).toEqual(anthropicResponse(whole, 'claude-x'));
  });

  it('maps length to max_tokens and a matched stop string to stop_sequence', () => {
    const stopOf = (finish: string, stopReason: unknown) =>
      translate([chunk({ content: 'a' }), chunk({}, finish, { stop_reason: stopReason })]).events.find((e) => e.type === 'message_delta');
    expect(stopOf('length', null)).toMatchObject({ delta: { stop_reason: 'max_tokens', stop_sequence: null } });
    expect(stopOf('stop', '</answer>')).toMatchObject({ delta: { stop_reason: 'stop_sequence', stop_sequence: '</answer>' } });
    expect(stopOf('stop', 151645)).toMatchObject({ delta: { stop_reason: 'end_turn', stop_sequence: null } });
  });

  it('ends a failed stream with an Anthropic error event', () => {
    const translator = new AnthropicStreamTranslator('m');
    translator.push(chunk({ content: 'Hel' }));
    expect(translator.fail('upstream stream failed: socket hang up')).toEqual([
      { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'upstream stream failed: socket hang up' } }) },
    ]);
    expect(translator.assembled()).toMatchObject({ content: [{ type: 'text', text: 'Hel' }], stop_reason: null });
  });
});

describe('Anthropic streams over HTTP', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('writes every event with its event: line, each as its upstream chunk arrives', async () => {
    fx = await startFixture();
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise, text: 'One two three.' });
    const session = fx.session();
    const res = await fetch(`${fx.proxy.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': session.secret, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'count' }] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // the upstream holds after its first token: that token must already be out
    while (!text.includes('"text_delta"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    expect(text).not.toContain('message_stop');
    gate.resolve();
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += decoder.decode(part.value, { stream: true });

    const frames = text.split('\n\n').filter((frame) => frame.trim() && !frame.startsWith(':'));
    const types = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const type = (JSON.parse(dataLine?.replace(/^data: /, '') ?? '{}') as { type: string }).type;
      expect(eventLine).toBe(`event: ${type}`);
      return type;
    });
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('keeps a silent stream alive with SSE comments the SDK skips', async () => {
    fx = await startFixture({ keepaliveMs: 20 });
    const gate = deferred();
    fx.fake.script.push({ kind: 'hold', gate: gate.promise, text: 'Slow answer.' });
    const session = fx.session();
    // the SDK reads one branch of the body, the test the other
    const raw: string[] = [];
    let rawDone: Promise<void> = Promise.resolve();
    const teeing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const [forSdk, forTest] = res.body!.tee();
      rawDone = (async () => {
        const decoder = new TextDecoder();
        for await (const part of forTest) raw.push(decoder.decode(part, { stream: true }));
      })();
      return new Response(forSdk, { status: res.status, headers: res.headers });
    };
    const client = new Anthropic({ baseURL: `${fx.proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0, fetch: teeing });
    const stream = client.messages.stream({ model: 'claude-x', max_tokens: 32, messages: [{ role: 'user', content: 'wait' }] });
    // the upstream holds after its first token; let it stay silent for several keepalive periods
    stream.once('text', () => setTimeout(() => gate.resolve(), 150));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Slow answer.' }]);
    expect(message.stop_reason).toBe('end_turn');
    await rawDone;
    expect(raw.join('')).toContain(': keepalive\n\n');
  });
});
