import { describe, expect, it } from 'vitest';
import { enginePace } from '../../../src/sim/engine-pace.js';

describe('enginePace', () => {
  it('prefills a prompt in proportion to its length, or not at all when no rate is set', () => {
    expect(enginePace({ prefillTokensPerSecond: 50_000 }).prefillMs(2_000)).toBeCloseTo(40);
    expect(enginePace({}).prefillMs(2_000)).toBe(0);
  });

  it('lengthens a decode step as answers share the decode throughput, never below tokenDelayMs', () => {
    const pace = enginePace({ tokenDelayMs: 5, decodeTokensPerSecond: 400 });
    expect(pace.stepMs()).toBe(5);
    const ends = Array.from({ length: 4 }, () => pace.begin());
    expect(pace.stepMs()).toBe(10); // 4 answers at 400 tokens/s: 10 ms a step
    ends[0]!();
    ends[0]!(); // ending twice counts once
    expect(pace.stepMs()).toBe(7.5);
    for (const end of ends) end();
    expect(pace.stepMs()).toBe(5);
  });

  it('keeps tokenDelayMs as the step when no decode throughput is set', () => {
    const pace = enginePace({ tokenDelayMs: 3 });
    pace.begin();
    pace.begin();
    expect(pace.stepMs()).toBe(3);
  });
});
