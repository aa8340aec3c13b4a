import { describe, expect, it } from 'vitest';
import { CallSequence } from '../../../src/proxy/calls/call-sequence.js';

describe('CallSequence', () => {
  it('numbers each rollout 1, 2, 3 … synchronously without a store to continue from', () => {
    const sequence = new CallSequence();
    expect([sequence.next('a'), sequence.next('b'), sequence.next('a')]).toEqual([1, 1, 2]);
  });

  it('continues after the last stored number, in arrival order, asking the store once per rollout', async () => {
    const asked: string[] = [];
    let release: (n: number) => void = () => undefined;
    const sequence = new CallSequence((rolloutId) => {
      asked.push(rolloutId);
      return new Promise((resolve) => {
        release = resolve;
      });
    });
    const first = [sequence.next('a'), sequence.next('a'), sequence.next('a')];
    release(7);
    expect(await Promise.all(first)).toEqual([8, 9, 10]);
    expect(sequence.next('a')).toBe(11); // known now: synchronous
    expect(asked).toEqual(['a']);
  });

  it('starts from 1 when the store cannot say', async () => {
    const sequence = new CallSequence(() => Promise.reject(new Error('store closed')));
    expect(await Promise.all([sequence.next('x'), sequence.next('x')])).toEqual([1, 2]);
  });
});
