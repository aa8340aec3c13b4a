/** A real tokenizer's stream decoder against its whole-list decode: the same text, cut where the ids were pushed. */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { loadFamily } from '../../../src/families/registry.js';
import { IncrementalDetokenizer } from '../../../src/families/tokenizer/incremental-detokenizer.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

const texts = [
  'plain ascii text with  double  spaces\n\tand tabs',
  'Grüße, ça va? 多行文本 — ✓ 🌍🤔👩‍👩‍👧',
  '<think>\nreasoning\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {"q": "é"}}\n</tool_call>',
  'مرحبا بالعالم · Привет · 안녕하세요 · कुछ',
  '',
];

for (const name of ['qwen3', 'deepseek_v3']) {
  describe(`${name}: streamDecoder`, () => {
    const family = loadFamily(name);
    const r = seededRandom(11);
    const special = family.tokenizer.addedTokens.filter((t) => t.special).map((t) => t.id);

    function randomIds(): number[] {
      const ids: number[] = [];
      for (let k = 0; k < 6; k++) {
        const roll = r();
        if (roll < 0.5) ids.push(...family.encode(texts[Math.floor(r() * texts.length)] as string));
        else if (roll < 0.7) ids.push(special[Math.floor(r() * special.length)] as number);
        // any vocabulary id, a byte of a character included
        else ids.push(Math.floor(r() * (family.vocabSize - family.tokenizer.addedTokens.length)));
      }
      return ids;
    }

    test('pieces join to decode(ids), for any cut', () => {
      for (let round = 0; round < 300; round++) {
        const ids = randomIds();
        const stream = family.streamDecoder();
        let text = '';
        for (let at = 0; at < ids.length;) {
          const size = 1 + Math.floor(r() * 4);
          text += stream.push(ids.slice(at, at + size));
          at += size;
        }
        text += stream.flush();
        assert.equal(text, family.decode(ids), `ids ${JSON.stringify(ids)}`);
      }
    });

    test('a character split over tokens waits for its last byte', () => {
      const ids = family.encode('a 🌍');
      // the emoji's four bytes are more than one token in both vocabularies
      assert.ok(ids.length >= 3);
      const stream = family.streamDecoder();
      const pieces = ids.map((id) => stream.push([id]));
      assert.ok(pieces.every((p) => !p.includes('\uFFFD')));
      assert.equal(pieces.join('') + stream.flush(), 'a 🌍');
    });

    test('byte-level vocabularies stream by bytes, in agreement with decoding with context', () => {
      const ids = family.encode(texts.join(' ').repeat(3));
      let calls = 0;
      const fallback = new IncrementalDetokenizer((piece) => {
        calls++;
        return family.decode(piece);
      });
      const stream = family.streamDecoder();
      let a = '';
      let b = '';
      for (const id of ids) {
        a += stream.push([id]);
        b += fallback.push([id]);
      }
      assert.equal(a + stream.flush(), b + fallback.flush());
      assert.ok(calls >= ids.length);
      assert.ok(!(stream instanceof IncrementalDetokenizer));
    });
  });
}
