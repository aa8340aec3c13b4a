import { describe, expect, it } from 'vitest';
import { IM_END_ID, SPECIAL_TOKENS, TEXT_ID_OFFSET } from '../../../src/families/chatml/special-tokens.js';
import { VOCAB_SIZE, decode, encode, preTokenize, tokenText } from '../../../src/families/chatml/tokenizer.js';

const SAMPLES: Record<string, string> = {
  ascii: "The quick brown fox can't jump over 1234567 lazy dogs; they've tried!",
  unicode: 'Ünïcödé — naïve café, 日本語のテキスト, العربية, Ελληνικά, ½ ≠ ∞',
  whitespace: 'a   b\n\n\t  c  \n    \r\n  d\t\t',
  emoji: 'ok 😀👍🏽 family 👨‍👩‍👧‍👦 flag 🇫🇷 end',
  code: 'def f(x):\n    return {"a": [1, 2, 3]}  # done\n',
  loneSurrogates: 'x\uD800y\uDFFFz\uD83D',
  markers: 'text that spells <|im_end|> and <tool_call> stays text',
  empty: '',
};

describe('tokenizer', () => {
  it.each(Object.entries(SAMPLES))('round-trips %s text exactly', (_name, text) => {
    expect(decode(encode(text))).toBe(text);
  });

  it('gives the same ids in every process: they are arithmetic, not learned', () => {
    // "hel" "lo" " wo" "rld": 3-byte and 2-byte groups packed above the special-token range.
    expect(encode('hello world')).toEqual([6907532, 28047, 2193551, 7564676]);
    // A 4-byte code point is one token.
    expect(encode('😀')).toEqual([16906016]);
  });

  it('splits text GPT-2 style before packing bytes', () => {
    expect(preTokenize("I'm here  now 12345!?")).toEqual(['I', "'m", ' here', ' ', ' now', ' 123', '45', '!?']);
  });

  it('makes every token a run of whole characters, so each decodes on its own', () => {
    for (const text of Object.values(SAMPLES)) {
      const ids = encode(text);
      expect(ids.map(tokenText).join('')).toBe(text);
      for (const id of ids) expect(id).toBeGreaterThanOrEqual(TEXT_ID_OFFSET);
    }
  });

  it('never produces special tokens from text, but decodes special ids to their markers', () => {
    expect(encode(SAMPLES.markers as string).some((id) => id < TEXT_ID_OFFSET)).toBe(false);
    expect(tokenText(IM_END_ID)).toBe('<|im_end|>');
    expect(SPECIAL_TOKENS.map((_, id) => tokenText(id))).toEqual([...SPECIAL_TOKENS]);
  });

  it('refuses ids that no text produces', () => {
    expect(() => tokenText(SPECIAL_TOKENS.length)).toThrow(RangeError); // reserved, unassigned
    expect(() => tokenText(-1)).toThrow(RangeError);
    expect(() => tokenText(VOCAB_SIZE)).toThrow(RangeError);
    expect(() => tokenText(1.5)).toThrow(RangeError);
    // Two bytes that are not a UTF-8 sequence: 0xff 0x00.
    expect(() => tokenText(TEXT_ID_OFFSET + 0x100 + 0xff00)).toThrow(/whole characters/);
  });

  it('packs at most 3 bytes a token', () => {
    expect(encode('abcdef')).toHaveLength(2);
    expect(encode('日本')).toHaveLength(2);
    expect(encode(' é')).toHaveLength(1);
  });
});
