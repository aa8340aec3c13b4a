import { UserError } from '../../util/errors.js';

/** Which scripted policy a `sim:` upstream names. */
export type PolicySpec = { kind: 'oracle' } | { kind: 'noisy'; failureRate: number } | { kind: 'replay'; rolloutId: string };

const ALLOWED = 'sim:oracle, sim:noisy:<p> with 0 ≤ p ≤ 1 (e.g. sim:noisy:0.3), sim:replay:<rollout-id>';

export function parseSimSpec(spec: string): PolicySpec {
  const [prefix, kind, ...rest] = spec.trim().split(':');
  const argument = rest.join(':');
  if (prefix === 'sim') {
    if (kind === 'oracle' && rest.length === 0) return { kind: 'oracle' };
    if (kind === 'noisy' && rest.length > 0) {
      const failureRate = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(argument) ? Number(argument) : NaN;
      if (failureRate >= 0 && failureRate <= 1) return { kind: 'noisy', failureRate };
      throw new UserError(`"${spec}": the failure rate of sim:noisy must be a number from 0 to 1, got "${argument}"`, `allowed: ${ALLOWED}`);
    }
    if (kind === 'replay' && argument.length > 0) return { kind: 'replay', rolloutId: argument };
  }
  throw new UserError(`"${spec}" is not a simulated model`, `allowed: ${ALLOWED}`);
}

export function formatSimSpec(spec: PolicySpec): string {
  switch (spec.kind) {
    case 'oracle':
      return 'sim:oracle';
    case 'noisy':
      return `sim:noisy:${spec.failureRate}`;
    case 'replay':
      return `sim:replay:${spec.rolloutId}`;
  }
}
