import { formatMetric, BEHAVIOUR_METRICS } from './metrics.js';
import type { BehaviourGroup, BehaviourSummary } from './behaviour-summary.js';
import { textTable } from '../text-table.js';

/** The table `openforge stats --behaviour` prints: rewards and every behaviour metric per task, per harness and overall. */
export function formatBehaviour(s: BehaviourSummary): string {
  const withK = s.k > 1;
  const header = ['task', 'n', 'reward', 'pass@1', ...(withK ? [`pass@${s.k}`, `pass^${s.k}`] : []), ...BEHAVIOUR_METRICS.map((m) => m.short)];
  const row = (g: BehaviourGroup) => [
    g.name || '(no task)',
    String(g.rollouts),
    formatMetric('reward', g.reward.mean),
    formatMetric('reward', g.reward.passAt1),
    ...(withK ? [formatMetric('reward', g.reward.passAtK), formatMetric('reward', g.reward.passHatK)] : []),
    ...BEHAVIOUR_METRICS.map((m) => formatMetric(m.unit, g.metrics[m.key]?.mean ?? null)),
  ];
  const harnessRows = s.harnesses.length > 1 ? s.harnesses.map((g) => row({ ...g, name: `harness ${g.name}` })) : [];
  const numeric = new Set(header.map((_, i) => i).filter((i) => i > 0));
  const tools = Object.entries(s.overall.tools)
    .sort(([, x], [, y]) => y - x)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  return [
    `run ${s.runId} · harness ${s.harness} · model ${s.upstream || '(unknown)'}${s.simulated ? ' · SIMULATED (sim upstream, no real LLM)' : ''}`,
    `rollouts ${s.overall.rollouts} · tasks ${s.tasks.length}${withK ? ` · k = ${s.k}` : ''} · metrics are means over the rollouts where they apply (docs/behaviour.md)`,
    '',
    ...textTable(header, [...s.tasks.map(row), ...harnessRows, row(s.overall)], numeric),
    '',
    `tool calls: ${tools || 'none'}`,
  ].join('\n');
}
