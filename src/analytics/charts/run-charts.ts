import type { BehaviourSummary } from '../behaviour/behaviour-summary.js';
import { BEHAVIOUR_METRICS } from '../behaviour/metrics.js';
import type { RunComparison } from '../compare/compare-runs.js';
import { barChart } from './bar-chart.js';
import { pairedBarChart } from './paired-bars.js';

/** A chart as the inspector and reports show it: what it plots (a metric's key) and its SVG. */
export interface Chart {
  key: string;
  title: string;
  svg: string;
}

/** A run's charts: its mean reward per task, then each behaviour metric per task. */
export function runCharts(s: BehaviourSummary): Chart[] {
  const reward = barChart({
    key: 'reward',
    title: 'mean reward per task',
    unit: 'reward',
    bars: s.tasks.map((t) => ({ label: t.name, value: t.reward.mean })),
  });
  return [
    { key: 'reward', title: 'mean reward', svg: reward },
    ...BEHAVIOUR_METRICS.map((m) => ({
      key: m.key,
      title: m.label,
      svg: barChart({
        key: m.key,
        title: `${m.label} per task`,
        unit: m.unit,
        bars: s.tasks.map((t) => ({ label: t.name, value: t.metrics[m.key]?.mean ?? null })),
      }),
    })),
  ];
}

/** Two runs as paired bars: every compared quantity over all shared tasks, then each one per task. */
export function comparisonCharts(c: RunComparison): Chart[] {
  const names = { a: c.a.runId, b: c.b.runId };
  const shares = c.overall.filter((v) => v.unit === 'share' || v.unit === 'reward');
  const overall = pairedBarChart({
    key: 'overall',
    title: 'overall: rewards and shares',
    unit: 'share',
    names,
    pairs: shares.map((v) => ({ label: v.label, a: v.a, b: v.b })),
  });
  const perTask = c.overall.map((v) => ({
    key: v.key,
    title: v.label,
    svg: pairedBarChart({
      key: v.key,
      title: `${v.label} per task`,
      unit: v.unit,
      names,
      pairs: c.tasks.map((t) => {
        const value = t.values.find((x) => x.key === v.key);
        return { label: t.taskId, a: value?.a ?? null, b: value?.b ?? null };
      }),
    }),
  }));
  return [{ key: 'overall', title: 'overall', svg: overall }, ...perTask];
}
