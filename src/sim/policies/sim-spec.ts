import { familyNames } from '../../families/registry.js';
import { UserError } from '../../util/errors.js';

/** Which scripted policy a `sim:` upstream names. */
export type PolicyKind = { kind: 'oracle' } | { kind: 'noisy'; failureRate: number } | { kind: 'replay'; rolloutId: string };

/** A `sim:` upstream: its policy, and the real model family whose wire it speaks (the built-in ChatML model when absent). */
export type PolicySpec = PolicyKind & { family?: string };

const ALLOWED = 'sim:oracle, sim:noisy:<p> with 0 ≤ p ≤ 1 (e.g. sim:noisy:0.3), sim:replay:<rollout-id>, each optionally @<family>';

export function parseSimSpec(spec: string): PolicySpec {
  const trimmed = spec.trim();
  const at = trimmed.lastIndexOf('@');
  const family = at >= 0 ? trimmed.slice(at + 1) : undefined;
  if (family !== undefined && !familyNames().includes(family)) {
    throw new UserError(
      `"${spec}": unknown model family "${family}"`,
      `use one of: ${familyNames().join(', ')} (e.g. sim:oracle@qwen3), or no @ for the built-in ChatML model`,
    );
  }
  const policy = parsePolicy(at >= 0 ? trimmed.slice(0, at) : trimmed, spec);
  return family !== undefined ? { ...policy, family } : policy;
}

function parsePolicy(text: string, spec: string): PolicyKind {
  const [prefix, kind, ...rest] = text.split(':');
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
  const family = spec.family ? `@${spec.family}` : '';
  switch (spec.kind) {
    case 'oracle':
      return `sim:oracle${family}`;
    case 'noisy':
      return `sim:noisy:${spec.failureRate}${family}`;
    case 'replay':
      return `sim:replay:${spec.rolloutId}${family}`;
  }
}
