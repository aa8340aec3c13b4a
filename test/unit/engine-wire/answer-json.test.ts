import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../../src/engine-wire/answer-json.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

/** A vLLM-shaped whole answer: prompt_token_ids at the top level, between other members. */
function answer(promptIds: unknown, content = 'Sure.', extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', token_ids: [5, 6], logprobs: { content: [{ token: 'a', logprob: -0.5 }] } },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    prompt_logprobs: null,
    prompt_token_ids: promptIds,
    kv_transfer_params: null,
    ...extra,
  };
}

/** The answer parsed with its ids as an Int32Array, if they were read from the bytes, and the rest as it was. */
function split(value: unknown, space?: number) {
  const { prompt_token_ids: ids, ...rest } = parseAnswer(Buffer.from(JSON.stringify(value, null, space)));
  const fromBytes = ids instanceof Int32Array;
  return { fromBytes, ids: fromBytes ? Array.from(ids) : ids, parsed: { ...rest, prompt_token_ids: fromBytes ? null : ids } };
}

describe('prompt_token_ids read from the bytes of a whole answer', () => {
  it('reads the ids JSON.parse would, and leaves every other member as it was', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 200; round++) {
      const length = round % 10 === 0 ? Math.floor(random() * 40_000) : Math.floor(random() * 300);
      const ids = Array.from({ length }, () => Math.floor(random() * 2 ** 31) * (random() < 0.02 ? -1 : 1));
      const body = answer(ids, `turn ${round}: naïve café ✓ "quoted" \\ [not, a, list]`);
      const { ids: read, parsed } = split(body, round % 3 === 0 ? 2 : undefined);
      expect(read).toEqual(ids);
      expect(parsed).toEqual({ ...body, prompt_token_ids: null });
    }
  });

  it('reuses its scratch space without leaking one answer into the next', () => {
    expect(split(answer(Array.from({ length: 50_000 }, (_, i) => i))).ids).toHaveLength(50_000);
    expect(split(answer([3, 1, 2])).ids).toEqual([3, 1, 2]);
    expect(split(answer([])).ids).toEqual([]);
  });

  it('cuts a list shorter than the null that replaces it as cleanly as a long one', () => {
    for (const ids of [[], [7], [42], [1, 2], [-3], [123456]]) {
      const body = answer(ids);
      expect(split(body)).toEqual({ fromBytes: true, ids, parsed: { ...body, prompt_token_ids: null } });
      expect(split(body, 2)).toEqual({ fromBytes: true, ids, parsed: { ...body, prompt_token_ids: null } });
    }
  });

  it('finds the top-level key when the same text sits in a message or deeper in the answer', () => {
    const inContent = answer([1, 2, 3], 'the field "prompt_token_ids":[9,9] is vLLM\'s');
    expect(split(inContent).ids).toEqual([1, 2, 3]);
    expect(split(inContent).parsed).toEqual({ ...inContent, prompt_token_ids: null });
    // a nested list of the same name (after the real one) is not the answer's: left to JSON.parse
    const nested = answer([1, 2, 3], 'ok', { debug: { prompt_token_ids: [8, 8] } });
    const result = split(nested);
    expect(result.fromBytes).toBe(false);
    expect(result.parsed).toEqual(nested);
  });

  it('judges the key top-level from what follows the list: nested values, brackets in strings, trailing space', () => {
    const tricky = answer([4, 5], 'ok', { kv_transfer_params: { blocks: [[1, 2], { note: 'a ] } \\" [ {' }] }, tail: '}}]]' });
    expect(split(tricky)).toEqual({ fromBytes: true, ids: [4, 5], parsed: { ...tricky, prompt_token_ids: null } });
    const spaced = Buffer.from(`${JSON.stringify(answer([4, 5]), null, 2)}\n  \n`);
    expect(Array.from(parseAnswer(spaced).prompt_token_ids as Int32Array)).toEqual([4, 5]);
    // one level too deep: the list closes an inner object first
    const inner = Buffer.from('{"choices":[],"debug":{"prompt_token_ids":[1,2]}}');
    expect(parseAnswer(inner).prompt_token_ids).toBeUndefined();
    expect((parseAnswer(inner) as { debug: unknown }).debug).toEqual({ prompt_token_ids: [1, 2] });
    // text after the top-level object is not JSON, and JSON.parse says so
    expect(() => parseAnswer(Buffer.from('{"prompt_token_ids":[1,2]} {}'))).toThrow(SyntaxError);
  });

  it('leaves anything but a list of 32-bit integers to JSON.parse', () => {
    for (const value of [null, [1.5, 2], [2 ** 31], [-(2 ** 31) - 1], ['1'], [1, null], 'ids', {}]) {
      const body = answer(value);
      const result = split(body);
      expect(result.fromBytes, JSON.stringify(value)).toBe(false);
      expect(result.parsed).toEqual(body);
    }
    const without = { id: 'x', choices: [] };
    expect(parseAnswer(Buffer.from(JSON.stringify(without)))).toEqual(without);
  });

  it('leaves a truncated, malformed or unusually written list to JSON.parse, which judges it', () => {
    const text = JSON.stringify(answer([1, 2, 3]));
    for (const broken of [text.slice(0, text.indexOf('[1,2') + 3), text.replace('[1,2,3]', '[1,,3]'), text.replace('[1,2,3]', '[1 2 3]')]) {
      expect(() => parseAnswer(Buffer.from(broken))).toThrow(SyntaxError);
    }
    expect(parseAnswer(Buffer.from(text.replace('[1,2,3]', '[1e3,2]'))).prompt_token_ids).toEqual([1000, 2]);
    expect(() => parseAnswer(Buffer.from('[1, 2]'))).toThrow('not a JSON object');
  });
});
