import { describe, expect, it } from 'vitest';
import { SHORTEST_DOUBLE_MAX_BYTES, writeShortestDouble } from '../../../src/trajectory/shortest-double.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const single = new Float32Array(1);

function step(v: number, ulps: number): number {
  bits[0] = v;
  let low = words[0]! + ulps;
  let high = words[1]!;
  if (low < 0) {
    low += 2 ** 32;
    high--;
  } else if (low >= 2 ** 32) {
    low -= 2 ** 32;
    high++;
  }
  words[0] = low;
  words[1] = high;
  return bits[0];
}

const random = seededRandom(20261203);
/** Value families whose printing is hard in different ways. */
const families: Record<string, () => number> = {
  // float32 logprobs as vLLM returns them: 16 or 17 digits, exact halfway cases at 17
  'float32 logprobs': () => {
    single[0] = -Math.exp(-random() * 14);
    return single[0]!;
  },
  'doubles in (-20, 0)': () => -random() * 20,
  'log-uniform, both signs, 1e-7 … 1e16': () => 10 ** (random() * 23 - 7) * (random() < 0.5 ? -1 : 1),
  'random bits, exponents 2^-22 … 2^50': () => {
    words[0] = (random() * 2 ** 32) >>> 0;
    words[1] = (((random() * 2 ** 32) >>> 0) & 0x800fffff) | ((1001 + Math.floor(random() * 72)) << 20);
    return bits[0]!;
  },
  'short decimals': () => Number((random() * 1000 - 500).toFixed(1 + Math.floor(random() * 15))),
  'powers of ten ± a few ulps': () => step(10 ** (Math.floor(random() * 22) - 7), Math.floor(random() * 7) - 3),
  'powers of two ± a few ulps': () => step(2 ** (Math.floor(random() * 70) - 21), Math.floor(random() * 7) - 3),
  'large non-int32 integers and halves': () => Math.floor(random() * 2 ** (32 + random() * 18)) / (random() < 0.5 ? 1 : 2),
};

describe('writeShortestDouble', () => {
  const buf = new Uint8Array(64);
  const data = new DataView(buf.buffer);
  const text = (end: number) => Buffer.from(buf.buffer, 0, end).toString('latin1');

  for (const [family, next] of Object.entries(families)) {
    it(`prints what String() prints, or declines: ${family}`, () => {
      const wrong: string[] = [];
      let declined = 0;
      const count = 200_000;
      for (let i = 0; i < count; i++) {
        const v = next();
        const end = writeShortestDouble(v, buf, data, 0);
        if (end < 0) {
          declined++;
          continue;
        }
        if ((end > SHORTEST_DOUBLE_MAX_BYTES || text(end) !== String(v)) && wrong.length < 5) wrong.push(`${String(v)} printed as ${text(end)}`);
      }
      expect(wrong).toEqual([]);
      // the fast path must stay the common path for values in its range
      if (!family.startsWith('powers of') && !family.startsWith('log-uniform') && !family.startsWith('random bits'))
        expect(declined / count).toBeLessThan(0.02);
    });
  }

  it('declines what it does not print: out of range, non-finite, powers of two', () => {
    for (const v of [0, -0, 5e-7, -1e-300, 1e15, 2.5e20, Number.NaN, Infinity, -Infinity, 0.5, -0.25, 1024 * 1024]) {
      expect(writeShortestDouble(v, buf, data, 0), String(v)).toBe(-1);
    }
  });

  it('writes at the offset it is given and nothing before it', () => {
    buf.fill(0x21);
    const end = writeShortestDouble(-0.1, buf, data, 10);
    expect(text(end).slice(10)).toBe('-0.1');
    expect(buf.subarray(0, 10).every((b) => b === 0x21)).toBe(true);
    expect(text(writeShortestDouble(123.456, buf, data, 0))).toBe('123.456');
    expect(text(writeShortestDouble(1e-6 * 3, buf, data, 0))).toBe(String(3e-6));
    expect(text(writeShortestDouble(4294967296.5, buf, data, 0))).toBe('4294967296.5');
  });
});
