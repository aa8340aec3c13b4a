import { describe, expect, it } from 'vitest';
import type { ChatBody } from '../../../src/engine-wire/chat-wire.js';
import { stripEngineFields } from '../../../src/engine-wire/engine-fields.js';
import { withoutEngineFields } from '../../../src/proxy/calls/engine-fields.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

/** A vLLM-shaped whole answer with its engine fields, members shuffled by `random`. */
function answer(random: () => number, round: number): ChatBody {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)] as T;
  const text = pick(['Sure.', 'naïve café ✓ "quoted" \\ back', 'the field "token_ids":[9,9] and {"prompt_token_ids": [1]}', '', 'emoji 🦀 \u2028 line']);
  const toolCall = { id: `call_${round}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ cmd: `echo "${text}"` }) } };
  const logprobs = {
    content: Array.from({ length: 1 + Math.floor(random() * 20) }, (_, i) => ({ token: `t${i}"]}`, logprob: -random(), bytes: [116, 48], top_logprobs: [] })),
  };
  const choice: Record<string, unknown> = {
    index: 0,
    message: { role: 'assistant', content: text, tool_calls: random() < 0.3 ? [toolCall] : [], reasoning_content: random() < 0.3 ? 'thinking [a] {b}' : null },
    logprobs: random() < 0.8 ? logprobs : null,
    finish_reason: pick(['stop', 'length', 'tool_calls']),
    stop_reason: random() < 0.5 ? null : 151645,
    token_ids: Array.from({ length: 5 }, () => Math.floor(random() * 150_000)),
  };
  const members: [string, unknown][] = [
    ['id', `chatcmpl-${round}`],
    ['object', 'chat.completion'],
    ['created', 1_700_000_000 + round],
    ['model', 'policy'],
    ['choices', random() < 0.1 ? [choice, { ...choice, index: 1 }, 7, null] : [choice]],
    ['usage', { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: null }],
    ['prompt_logprobs', null],
    ['prompt_token_ids', Array.from({ length: Math.floor(random() * 3000) }, () => Math.floor(random() * 150_000))],
    ['kv_transfer_params', random() < 0.5 ? null : { remote: [1, 2] }],
    ['system_fingerprint', null],
  ];
  members.sort(() => random() - 0.5);
  return Object.fromEntries(members) as ChatBody;
}

const cut = (bytes: Buffer, logprobs: boolean) => withoutEngineFields(bytes, { logprobs });

describe("the harness's answer cut from the upstream's bytes", () => {
  it('is what parsing and stripping the answer gives, for every shape, spacing and logprobs choice', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 400; round++) {
      const body = answer(random, round);
      const bytes = Buffer.from(JSON.stringify(body, null, round % 4 === 0 ? 2 : undefined));
      for (const logprobs of [false, true]) {
        const expected = stripEngineFields(JSON.parse(bytes.toString('utf8')) as ChatBody, { logprobs });
        const out = cut(bytes, logprobs);
        expect(out, `round ${round}`).toBeDefined();
        expect(JSON.parse(out!.toString('utf8'))).toEqual(expected);
      }
    }
  });

  it("keeps the upstream's own text of what it keeps, and its member order", () => {
    const bytes = Buffer.from(
      '{"id":"a","created":1.0,"prompt_token_ids":[1,2],"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"token_ids":[3],"logprobs":{"content":[]},"finish_reason":"stop"}],"usage":{"n":1e3}}',
    );
    expect(cut(bytes, false)?.toString()).toBe(
      '{"id":"a","created":1.0,"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"logprobs":null,"finish_reason":"stop"}],"usage":{"n":1e3}}',
    );
    expect(cut(bytes, true)?.toString()).toContain('"logprobs":{"content":[]}');
  });

  it('drops an engine field whose key is written with escapes, as JSON.parse reads it', () => {
    const bytes = Buffer.from('{"id":"a","prompt\\u005ftoken_ids":[1],"choices":[]}');
    expect(JSON.parse(cut(bytes, false)!.toString())).toEqual({ id: 'a', choices: [] });
  });

  it('gives up (so the answer is parsed instead) on anything cut off, out of place or not one object', () => {
    const whole = JSON.stringify(answer(seededRandom(3), 0));
    for (let end = 0; end < whole.length; end += 7) expect(cut(Buffer.from(whole.slice(0, end)), false), `cut at ${end}`).toBeUndefined();
    for (const broken of [
      '',
      'null',
      '[1]',
      '"text"',
      '{"a":1}x',
      '{"a":1,}',
      '{"a" 1}',
      '{"a":tru}',
      '{"a":1}{"b":2}',
      '<html>502</html>',
      '{"choices":[{"a":1},]}',
      '{"choices":[{"a":]}',
    ]) {
      expect(cut(Buffer.from(broken), false), broken).toBeUndefined();
    }
    expect(cut(Buffer.from(' {"a":1} \n'), false)?.toString()).toBe('{"a":1}');
  });
});
