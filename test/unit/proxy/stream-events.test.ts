import { describe, expect, it } from 'vitest';
import { STREAM_DONE, UpstreamEventReader } from '../../../src/engine-wire/sse-chunks.js';
import { readStreamedAnswer } from '../../../src/engine-wire/streamed-answer.js';
import { chatProtocol } from '../../../src/proxy/protocols/chat/protocol.js';
import type { PreparedCall, SseEvent } from '../../../src/proxy/protocols/types.js';
import { CutEvents, TranslatedEvents, type EventRelay } from '../../../src/proxy/calls/stream-events.js';

const chunk = (body: object) => `data: ${JSON.stringify(body)}\n\n`;
const token = (text: string, id: number, finish: string | null = null) =>
  chunk({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 3,
    model: 'policy',
    choices: [
      {
        index: 0,
        delta: { content: text },
        logprobs: { content: [{ token: text, logprob: -id / 64, top_logprobs: [] }] },
        finish_reason: finish,
        token_ids: [id],
      },
    ],
  });

/** A vLLM stream as it comes off the socket: split anywhere, a multi-byte character across two reads among them. */
function upstreamParts(): Buffer[] {
  const events = [
    chunk({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 3,
      model: 'policy',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, token_ids: [] }],
      prompt_token_ids: [1, 2, 3, 4, 5],
    }),
    ...'Héllo, wörld — the tests pass now.'.split(/(?=[ ,])/).map((text, i) => token(text, 10 + i)),
    chunk({
      id: 'c',
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":' } }] },
          finish_reason: null,
          token_ids: [90],
        },
      ],
    }),
    chunk({ id: 'c', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }, finish_reason: null, token_ids: [91] }] }),
    token('', 2, 'tool_calls'),
    chunk({ id: 'c', choices: [], usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 } }),
    'data: [DONE]\n\n',
  ];
  const bytes = Buffer.from(events.join(''));
  const parts: Buffer[] = [];
  for (let at = 0, size = 7; at < bytes.length; at += size, size = ((size * 7) % 97) + 3) parts.push(bytes.subarray(at, at + size));
  return parts;
}

function call(wants: { logprobs: boolean; usage: boolean }): PreparedCall {
  const body = {
    model: 'policy',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    logprobs: wants.logprobs,
    stream_options: { include_usage: wants.usage },
  };
  return chatProtocol.endpoints[0]!.prepare(body) as PreparedCall;
}

/** Runs the parts through a relay as `answerStream` does; the harness's events parsed back, and the record's tokens and response. */
function relayed(relay: EventRelay, parts: Buffer[]) {
  const reader = new UpstreamEventReader();
  const out: SseEvent[] = [];
  for (const part of parts) {
    relay.read(part);
    reader.feed(part, (data) => {
      if (data !== STREAM_DONE) relay.add(data, out);
    });
  }
  const recorded = relay.recorded(null);
  const read = recorded.streamedAnswer ? readStreamedAnswer(recorded.streamedAnswer) : { tokens: recorded.tokens, response: recorded.response };
  return {
    events: out.map((event) => JSON.parse(event.data)),
    tokens: read.tokens,
    response: read.response,
    held: recorded.streamedAnswer !== undefined,
    finished: relay.finished(),
  };
}

describe('a chat stream relayed as cut events', () => {
  for (const wants of [
    { logprobs: false, usage: false },
    { logprobs: true, usage: true },
  ]) {
    it(`sends the harness and records what the parsed way does (logprobs ${wants.logprobs}, usage ${wants.usage}), however much of the stream it may hold`, () => {
      const prepared = call(wants);
      const parsed = relayed(new TranslatedEvents(prepared.streamTranslator()), upstreamParts());
      expect(parsed.tokens).toMatchObject({
        completionTokenIds: [10, 11, 12, 13, 14, 15, 16, 17, 90, 91, 2],
        finishReason: 'tool_calls',
        missingTokenIds: false,
      });
      for (const limit of [undefined, 0, 600]) {
        const cut = relayed(new CutEvents(prepared.streamCut!, prepared.streamTranslator(), limit), upstreamParts());
        expect(cut.events).toEqual(parsed.events);
        expect(cut.tokens).toEqual(parsed.tokens);
        expect(cut.response).toEqual(parsed.response);
        expect(cut.finished).toBe(true);
        // held whole up to the limit; past it, read on the way
        expect(cut.held).toBe(limit === undefined);
      }
    });
  }
});

describe('a relayed stream read for its record', () => {
  it('stops at an error event with what the upstream said, keeping the tokens before it, and ignores what follows [DONE]', () => {
    const stream = (...events: string[]) => ({ bytes: Buffer.from(events.join('')), view: { logprobs: false }, relayError: null });
    const failed = readStreamedAnswer(stream(token('he', 7), chunk({ error: { message: 'engine overloaded' } }), token('y', 8)));
    expect(failed.problem).toBe('upstream reported an error mid-stream: engine overloaded');
    expect(failed.tokens.completionTokenIds).toEqual([7]);
    const done = readStreamedAnswer(stream(token('he', 7), token('y', 8, 'stop'), 'data: [DONE]\n\n', 'data: not json\n\n'));
    expect(done.problem).toBeNull();
    expect(done.tokens).toMatchObject({ completionTokenIds: [7, 8], finishReason: 'stop' });
    expect(done.response).toMatchObject({ choices: [{ message: { content: 'hey' }, logprobs: null, finish_reason: 'stop' }] });
  });
});
