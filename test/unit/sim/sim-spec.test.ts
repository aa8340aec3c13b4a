import { describe, expect, it } from 'vitest';
import { createPolicy } from '../../../src/sim/policies/create-policy.js';
import { formatSimSpec, parseSimSpec } from '../../../src/sim/policies/sim-spec.js';
import { UserError } from '../../../src/util/errors.js';

describe('parseSimSpec', () => {
  it('parses the three forms', () => {
    expect(parseSimSpec('sim:oracle')).toEqual({ kind: 'oracle' });
    expect(parseSimSpec('sim:noisy:0.3')).toEqual({ kind: 'noisy', failureRate: 0.3 });
    expect(parseSimSpec('sim:noisy:1')).toEqual({ kind: 'noisy', failureRate: 1 });
    expect(parseSimSpec('sim:replay:run-3/task-a/0')).toEqual({ kind: 'replay', rolloutId: 'run-3/task-a/0' });
    expect(parseSimSpec('sim:replay:a:b')).toEqual({ kind: 'replay', rolloutId: 'a:b' });
  });

  it.each([
    'oracle',
    'sim:',
    'sim:oracle:x',
    'sim:noisy',
    'sim:noisy:',
    'sim:noisy:1.5',
    'sim:noisy:-0.1',
    'sim:noisy:abc',
    'sim:replay:',
    'sim:gpt',
    'http://x/v1',
  ])('refuses %j naming the allowed forms', (spec) => {
    expect(() => parseSimSpec(spec)).toThrow(UserError);
    expect(() => parseSimSpec(spec)).toThrow(/sim:oracle, sim:noisy:<p>.*sim:replay:<rollout-id>/);
  });

  it('formats back to the same text', () => {
    for (const text of ['sim:oracle', 'sim:noisy:0.25', 'sim:replay:r1', 'sim:oracle@qwen3', 'sim:noisy:0.3@deepseek_v3']) {
      expect(formatSimSpec(parseSimSpec(text))).toBe(text);
    }
  });

  it('reads a real model family after @, and names the families it knows when it does not know one', () => {
    expect(parseSimSpec('sim:noisy:0.3@qwen3')).toEqual({ kind: 'noisy', failureRate: 0.3, family: 'qwen3' });
    expect(parseSimSpec('sim:replay:run.t.0.1@deepseek_v3')).toEqual({ kind: 'replay', rolloutId: 'run.t.0.1', family: 'deepseek_v3' });
    expect(() => parseSimSpec('sim:oracle@llama9')).toThrow(/unknown model family "llama9"[\s\S]*qwen3, deepseek_v3/);
  });
});

describe('createPolicy', () => {
  it('names policies after their spec', () => {
    expect(createPolicy({ kind: 'oracle' }).name).toBe('oracle');
    expect(createPolicy({ kind: 'noisy', failureRate: 0.3 }).name).toBe('noisy:0.3');
    expect(createPolicy({ kind: 'replay', rolloutId: 'r' }, []).name).toBe('replay');
  });

  it('needs recorded answers for a replay', () => {
    expect(() => createPolicy({ kind: 'replay', rolloutId: 'r1' })).toThrow(/needs the answers recorded for rollout r1/);
  });
});
