import { describe, expect, it } from 'vitest';
import { PromptDeltaWriter } from '../../../src/store/prompt-delta.js';
import { SpareTokenArrays, tokenCapacity } from '../../../src/store/spare-token-arrays.js';

describe('spare token arrays', () => {
  it('hands back a buffer that was given back, smallest fit first, and allocates only when none fits', () => {
    const spare = new SpareTokenArrays();
    const big = spare.take(5000);
    const small = spare.take(900);
    expect([big.length, small.length]).toEqual([5000, 900]);
    expect(tokenCapacity(big)).toBeGreaterThanOrEqual(5000);
    spare.give(big);
    spare.give(small);
    expect(spare.take(800).buffer).toBe(small.buffer); // the small one fits: the big one stays spare
    expect(spare.take(4000).buffer).toBe(big.buffer);
    expect(spare.take(100).buffer).not.toBe(small.buffer); // both taken again: a new one
  });

  it('keeps at most maxSpare buffers and maxSpareTokens tokens', () => {
    const reused = (spare: SpareTokenArrays, lengths: number[]) => {
      const arrays = lengths.map((n) => spare.take(n));
      arrays.forEach((a) => spare.give(a));
      return lengths.map((n) => spare.take(n)).filter((a) => arrays.some((b) => b.buffer === a.buffer)).length;
    };
    expect(reused(new SpareTokenArrays(2), [10, 10, 10])).toBe(2);
    // capacities are 256 (10 tokens) and 1 280 (1 000): the second does not fit a 1 000-token bound
    expect(reused(new SpareTokenArrays(32, 1000), [10, 1000])).toBe(1);
  });
});

describe('prompt delta writer with reused arrays', () => {
  it('finds the right base in every rollout while the arrays of forgotten calls are reused for new ones', () => {
    const writer = new PromptDeltaWriter();
    const prompts = new Map<string, number[]>();
    // 8 rollouts × 12 calls, interleaved: each rollout keeps 4 calls, so 64 are forgotten and their
    // arrays reused; a stale token left in a reused array would break a shared prefix below
    for (let seq = 1; seq <= 12; seq++) {
      for (let r = 0; r < 8; r++) {
        const id = `r${r}`;
        const prompt = [...(prompts.get(id) ?? Array.from({ length: 40 }, (_, i) => 1000 * r + i)), ...Array.from({ length: 30 + seq }, (_, i) => 7 * seq + i + r)];
        const completion = [seq, r, 99];
        const delta = writer.compact(id, seq, prompt);
        if (seq === 1) expect(delta).toBeUndefined();
        else expect(delta).toEqual({ baseSeq: seq - 1, sharedLen: prompts.get(id)!.length, suffix: prompt.slice(prompts.get(id)!.length) });
        writer.remember(id, seq, prompt, completion);
        prompts.set(id, [...prompt, ...completion]);
      }
    }
  });
});
