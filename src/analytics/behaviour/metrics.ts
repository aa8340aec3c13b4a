import type { RolloutBehaviour } from './rollout-behaviour.js';

/** How a metric's values read: a share of 0–1, a count, milliseconds. */
export type MetricUnit = 'share' | 'count' | 'ms';

/** One behaviour metric: its name, how to read it off a rollout, and which way is better. */
export interface BehaviourMetric {
  key: string;
  label: string;
  /** The table column's header. */
  short: string;
  unit: MetricUnit;
  /** The rollout's value; null where the metric does not apply (nothing written, no errors, no plan). */
  of(r: RolloutBehaviour): number | null;
  /** True when more is better, false when less is, undefined when neither (turns, tokens). */
  higherIsBetter?: boolean;
}

/** Every behaviour metric, in the order tables and charts show them (docs/behaviour.md defines each). */
export const BEHAVIOUR_METRICS: readonly BehaviourMetric[] = [
  {
    key: 'selfVerification',
    label: 'self-verification',
    short: 'verified',
    unit: 'share',
    higherIsBetter: true,
    of: (r) => (r.selfVerified === null ? null : Number(r.selfVerified)),
  },
  { key: 'toolCoverage', label: 'tool coverage', short: 'coverage', unit: 'share', of: (r) => r.toolCoverage },
  { key: 'planCompletion', label: 'plan completion', short: 'plan', unit: 'share', higherIsBetter: true, of: (r) => r.planCompletion },
  { key: 'errorRecovery', label: 'error recovery', short: 'recovery', unit: 'share', higherIsBetter: true, of: (r) => r.errorRecovery },
  { key: 'toolErrors', label: 'tool errors', short: 'errors', unit: 'count', higherIsBetter: false, of: (r) => r.toolErrors },
  { key: 'repeatedCalls', label: 'repeated calls', short: 'repeats', unit: 'count', higherIsBetter: false, of: (r) => r.repeatedCalls },
  { key: 'turns', label: 'turns', short: 'turns', unit: 'count', of: (r) => r.turns },
  { key: 'toolCalls', label: 'tool calls', short: 'tools', unit: 'count', of: (r) => r.toolCalls },
  { key: 'promptTokens', label: 'prompt tokens', short: 'prompt tok', unit: 'count', of: (r) => r.promptTokens },
  { key: 'completionTokens', label: 'completion tokens', short: 'compl tok', unit: 'count', of: (r) => r.completionTokens },
  { key: 'msPerTurn', label: 'time per turn', short: 'per turn', unit: 'ms', of: (r) => r.msPerTurn },
];

/** A metric's value as tables print it: a share with two decimals, a count with one, a time in ms or s. */
export function formatMetric(unit: MetricUnit | 'reward', value: number | null, signed = false): string {
  if (value === null || !Number.isFinite(value)) return '-';
  const sign = signed && value > 0 ? '+' : '';
  if (unit === 'ms') return Math.abs(value) >= 1000 ? `${sign}${(value / 1000).toFixed(2)} s` : `${sign}${Math.round(value)} ms`;
  if (unit === 'count') return `${sign}${Math.abs(value) >= 100 ? Math.round(value) : value.toFixed(1)}`;
  return `${sign}${value.toFixed(unit === 'reward' ? 3 : 2)}`;
}
