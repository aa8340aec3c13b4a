import type { TrajectoryStats } from './stats.js';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const num = (x: number | null, digits = 2) => (x === null ? '-' : x.toFixed(digits));

function counts(record: Record<string, number>): string {
  const parts = Object.entries(record)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** The text `openforge stats` prints. */
export function formatTrajectoryStats(s: TrajectoryStats): string {
  const t = s.tokensPerSample;
  const lines = [
    `run ${s.runId}${s.simulated ? ' · model: SIMULATED (sim upstream, no real LLM)' : ''}${s.interrupted ? ' · interrupted (never finished)' : ''}`,
    `rollouts ${s.rollouts}${s.staleRollouts > 0 ? ` (${s.staleRollouts} stale)` : ''} · calls ${s.calls} · policy calls ${s.policyCalls}`,
    `merge rate ${pct(s.mergeRate)} (${s.mergedCalls} of ${s.policyCalls} policy calls merged into a sample another call started)`,
    `breaks: ${counts(s.breaks)}`,
    `calls excluded: ${counts({ ...s.excluded })}`,
    `samples ${s.samples} · tokens per sample mean ${num(t?.mean ?? null, 0)} · p50 ${t?.p50 ?? '-'} · max ${t?.max ?? '-'}`,
  ];
  if (s.corruptRollouts.length > 0) {
    lines.push(`corrupt rollouts (left out): ${s.corruptRollouts.length}`, ...s.corruptRollouts.map((c) => `  ${c.message}`));
  }
  const withK = s.k > 1;
  lines.push('', `rewards per task${withK ? ` (k = ${s.k})` : ''}:`);
  for (const task of s.tasks) {
    const dist = Object.entries(task.rewards)
      .map(([r, n]) => `${r}×${n}`)
      .join(' ');
    const pass = withK ? ` · pass@${s.k} ${num(task.passAtK)} · pass^${s.k} ${num(task.passHatK)}` : '';
    // rollouts a standalone proxy recorded for no named task
    lines.push(`  ${task.taskId || '(no task)'}: n ${task.n} · rewards ${dist} · mean ${num(task.mean)} · pass@1 ${num(task.passAt1)}${pass}`);
  }
  lines.push(`overall pass@1 ${num(s.passAt1, 3)}${withK ? ` · pass@${s.k} ${num(s.passAtK, 3)} · pass^${s.k} ${num(s.passHatK, 3)}` : ''}`);
  return lines.join('\n');
}
