import { formatMetric } from '../behaviour/metrics.js';
import { textTable } from '../text-table.js';
import type { ComparedValue, RunComparison, RunSide, TaskComparison } from './compare-runs.js';

/** The text `openforge compare` prints: overall, then each task, then the tasks whose outcome flipped with their rollouts' links. */
export function formatComparison(c: RunComparison): string {
  const level = Math.round(c.bootstrap.level * 100);
  const lines = [
    `A ${describeSide(c.a)}`,
    `B ${describeSide(c.b)}`,
    `${c.tasks.length} task(s) in both · B − A with its ${level}% bootstrap interval (${c.bootstrap.resamples} resamples of the rollouts within each task, seed ${c.bootstrap.seed})`,
  ];
  if (c.onlyIn.a.length > 0) lines.push(`only in A (left out): ${c.onlyIn.a.join(', ')}`);
  if (c.onlyIn.b.length > 0) lines.push(`only in B (left out): ${c.onlyIn.b.join(', ')}`);
  lines.push('', 'overall', ...valueTable(c.overall, level));
  for (const t of c.tasks) {
    lines.push('', `${t.taskId} · A ${t.rollouts.a} rollout(s), ${t.outcome.a} · B ${t.rollouts.b}, ${t.outcome.b}`, ...valueTable(t.values, level));
  }
  lines.push(
    '',
    c.flipped.length > 0 ? `outcome flipped in ${c.flipped.length} task(s):` : 'no task flipped its outcome (pass: every rollout passed, fail: none did)',
  );
  for (const t of c.flipped) lines.push(...flippedLines(t));
  return lines.join('\n');
}

function describeSide(s: RunSide): string {
  return `run ${s.runId} · harness ${s.harness} · model ${s.upstream || '(unknown)'}${s.simulated ? ' (SIMULATED)' : ''} · ${s.rollouts} rollouts`;
}

function valueTable(values: readonly ComparedValue[], level: number): string[] {
  const rows = values.map((v) => [
    `  ${v.label}`,
    formatMetric(v.unit, v.a),
    formatMetric(v.unit, v.b),
    formatMetric(v.unit, v.diff, true),
    v.interval ? `[${formatMetric(v.unit, v.interval.low, true)}, ${formatMetric(v.unit, v.interval.high, true)}]` : '-',
  ]);
  return textTable(['', 'A', 'B', 'B − A', `${level}% interval`], rows, new Set([1, 2, 3]));
}

function flippedLines(t: TaskComparison): string[] {
  const links = (side: 'a' | 'b') => t.links[side].map((l) => `${l.url} (reward ${l.reward ?? 'none'})`);
  return [`  ${t.taskId}: ${t.outcome.a} → ${t.outcome.b}`, ...links('a').map((l) => `    A ${l}`), ...links('b').map((l) => `    B ${l}`)];
}
