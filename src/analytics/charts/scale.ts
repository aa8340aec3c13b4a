import { formatMetric, type MetricUnit } from '../behaviour/metrics.js';

/** The top of a chart's value axis: 1 for shares and rewards, else the largest value (1 when there is none). */
export function axisMax(unit: MetricUnit | 'reward', values: readonly (number | null)[]): number {
  if (unit === 'share' || unit === 'reward') return 1;
  return Math.max(1, ...values.filter((v): v is number => v !== null && Number.isFinite(v)));
}

/** A value as its chart label prints it. */
export function valueText(unit: MetricUnit | 'reward', value: number | null): string {
  return formatMetric(unit, value);
}
