import { describe, expect, it } from 'vitest';
import type { ChatBody } from '../../../src/engine-wire/chat-wire.js';
import { TokenCapture } from '../../../src/engine-wire/token-capture.js';
import { cutChatEvent, type ChatClientWants } from '../../../src/proxy/protocols/chat/event-cut.js';
import { ChatStreamTranslator } from '../../../src/proxy/protocols/chat/stream.js';

const WANTS: ChatClientWants[] = [
  { logprobs: false, usage: false },
  { logprobs: true, usage: false },
  { logprobs: false, usage: true },
  { logprobs: true, usage: true },
];

/** What the parsed way sends the harness for this event: the data of its events, parsed back. */
function parsedWay(data: string, wants: ChatClientWants): unknown[] {
  return new ChatStreamTranslator(wants).push(JSON.parse(data) as ChatBody).map((event) => JSON.parse(event.data));
}

function cutWay(data: string, wants: ChatClientWants): unknown[] | undefined {
  const cut = cutChatEvent(data, wants);
  if (cut === undefined) return undefined;
  return cut.text === null ? [] : [JSON.parse(cut.text)];
}

const vllmFirst = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'policy',
  choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, token_ids: [] }],
  prompt_token_ids: [1, 2, 3, 4],
});
const vllmToken = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'policy',
  choices: [
    {
      index: 0,
      delta: { content: 'He said "hi\\" \\\\ } ] {' },
      logprobs: { content: [{ token: '"}', bytes: [34, 125], logprob: -0.25, top_logprobs: [] }] },
      finish_reason: null,
      token_ids: [42],
      stop_reason: null,
    },
  ],
});
const vllmLast = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: {}, logprobs: { content: [{ token: '<|im_end|>', logprob: -1e-5 }] }, finish_reason: 'stop', token_ids: [2], stop_reason: 7 }],
});
const usageOnly = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
});

const EVENTS: Record<string, string> = {
  'the first chunk, with the prompt ids': vllmFirst,
  'a token with quotes, backslashes and brackets in its text': vllmToken,
  'the last token, with a finish reason and a stop reason': vllmLast,
  'a usage-only chunk': usageOnly,
  'usage beside a choice': JSON.stringify({ choices: [{ index: 0, delta: { content: 'x' }, token_ids: [5] }], usage: { total_tokens: 1 } }),
  'an engine field first, last and alone':
    '{"token_ids":[1],"id":"a","choices":[{"token_ids":[2]},{"index":1,"delta":{"content":"b"},"prompt_logprobs":null}],"kv_transfer_params":{"x":[1,{"y":"}"}]}}',
  'only engine fields': '{"prompt_token_ids":[1],"stop_reason":null}',
  'spaces and tabs everywhere':
    ' { "id" : "a" ,\t"choices" : [ { "index" : 0 , "token_ids" : [ 3 ] , "logprobs" : { "content" : [ ] } , "delta" : { } } ] , "usage" : null } ',
  'no choices member': '{"id":"a","usage":{"total_tokens":3}}',
  'choices that are not objects': '{"choices":[1,"two",null,[3]]}',
  'unicode text': JSON.stringify({ choices: [{ index: 0, delta: { content: 'naïve — 日本 🎉' }, token_ids: [9] }] }),
  'a tool call delta': JSON.stringify({
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
        token_ids: [8, 9],
      },
    ],
  }),
  'an empty object': '{}',
  // escapes in a long text
  ...Object.fromEntries(
    [60, 61, 62, 63, 64, 65].map((n) => [
      `a text with escapes about ${n} chars in`,
      JSON.stringify({ choices: [{ index: 0, delta: { content: `${'x'.repeat(n)}"\\\\"${'\\'.repeat(n % 3)}"` }, token_ids: [1] }] }),
    ]),
  ),
};

describe('a chat stream event cut from its text', () => {
  for (const [name, data] of Object.entries(EVENTS)) {
    for (const wants of WANTS) {
      it(`sends the harness what the parsed way sends: ${name} (logprobs ${wants.logprobs}, usage ${wants.usage})`, () => {
        expect(cutWay(data, wants)).toEqual(parsedWay(data, wants));
      });
    }
  }

  it('keeps the upstream’s own text of what it keeps', () => {
    const data = '{"id":"a","created":1.50,"choices":[{"index":0,"delta":{"content":"\\u00e9"},"token_ids":[1]}]}';
    expect(cutChatEvent(data, { logprobs: false, usage: false })?.text).toBe('{"id":"a","created":1.50,"choices":[{"index":0,"delta":{"content":"\\u00e9"}}]}');
  });

  it('tells when a choice finished and when a token was relayed, as token capture does', () => {
    for (const data of Object.values(EVENTS)) {
      const cut = cutChatEvent(data, { logprobs: false, usage: false });
      const capture = new TokenCapture();
      capture.addChunk(JSON.parse(data) as ChatBody);
      expect(cut?.finished, data).toBe(capture.result().finishReason !== null);
      if (capture.hasOutput()) expect(cut?.output, data).toBe(true);
    }
    expect(cutChatEvent(vllmFirst, { logprobs: false, usage: false })?.output).toBe(false);
    expect(cutChatEvent(vllmToken, { logprobs: false, usage: false })?.output).toBe(true);
  });

  it('leaves to the parsed way what it cannot cut safely', () => {
    const declined = [
      '',
      'not json',
      '[1,2]',
      '"a string"',
      '{"id":"a"',
      '{"id":"a"} trailing',
      '{"id":"a",}',
      '{"choices":[{"index":0]}',
      '{"choices":[{"delta":{"content":"x"]}}]}',
      '{"kv_transfer_params":{"b":[1}]}',
      '{"token_ids":[1}]}',
      '{"token_ids":[1,[2]}',
      '{"error":{"message":"engine overloaded"}}',
      '{"tok\\u0065n_ids":[1]}',
      '{"id":\n"a"}',
      '{"id":"a"}\r',
      '{"id":"unterminated}',
      '{"id":}',
    ];
    for (const data of declined) expect(cutChatEvent(data, { logprobs: false, usage: false }), data).toBeUndefined();
  });

  it('never sends the harness other JSON than the parsed way would, however an event is mangled', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = '{}[]",:\\ 0123456789-.eEtruefalsn\tabc';
    const sources = Object.values(EVENTS);
    let cutButValid = 0;
    for (let round = 0; round < 5000; round++) {
      let data = sources[random(sources.length)] as string;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(data.length + 1);
        const kind = random(3);
        const char = alphabet[random(alphabet.length)] as string;
        if (kind === 0) data = data.slice(0, at) + char + data.slice(at);
        else if (kind === 1) data = data.slice(0, at) + data.slice(at + 1);
        else data = data.slice(0, at) + char + data.slice(at + 1);
      }
      const wants = WANTS[random(WANTS.length)] as ChatClientWants;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        continue; // not JSON: the harness gets the upstream's text or the stream fails, and the record reads it as not JSON
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        expect(cutChatEvent(data, wants), data).toBeUndefined();
        continue;
      }
      const cut = cutWay(data, wants);
      if (cut === undefined) continue;
      cutButValid++;
      // duplicate keys are the one place JSON.parse and a cut may disagree: JSON.parse keeps the last
      if (/"(\w+)":[^{}]*"\1":/.test(data)) continue;
      expect(cut, data).toEqual(parsedWay(data, wants));
    }
    expect(cutButValid).toBeGreaterThan(500);
  });
});
