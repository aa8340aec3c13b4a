import { describe, expect, it } from 'vitest';
import { PromptDeltaWriter } from '../../../src/store/prompt-delta.js';
import { SpareBuffers } from '../../../src/store/spare-buffers.js';

describe('spare buffers', () => {
  it('hands back a buffer that was given back, smallest fit first, and allocates only when none fits', () => {
    const spare = new SpareBuffers();
    const big = spare.take(20_000);
    const small = spare.take(3_600);
    expect(big.byteLength).toBeGreaterThanOrEqual(20_000);
    expect(small.byteLength).toBeGreaterThanOrEqual(3_600);
    spare.give(big);
    spare.give(small);
    expect(spare.take(3_200)).toBe(small); // the small one fits: the big one stays spare
    expect(spare.take(16_000)).toBe(big);
    expect(spare.take(400)).not.toBe(small); // both taken again: a new one
  });

  it('keeps at most maxSpare buffers and maxSpareBytes bytes', () => {
    const reused = (spare: SpareBuffers, sizes: number[]) => {
      const buffers = sizes.map((n) => spare.take(n));
      buffers.forEach((b) => spare.give(b));
      return sizes.map((n) => spare.take(n)).filter((b) => buffers.includes(b)).length;
    };
    expect(reused(new SpareBuffers(2), [40, 40, 40])).toBe(2);
    // capacities are 1 024 (40 bytes) and 5 120 (4 000): the second does not fit a 4 000-byte bound
    expect(reused(new SpareBuffers(32, 4000), [40, 4000])).toBe(1);
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
        const prompt = [
          ...(prompts.get(id) ?? Array.from({ length: 40 }, (_, i) => 1000 * r + i)),
          ...Array.from({ length: 30 + seq }, (_, i) => 7 * seq + i + r),
        ];
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
