import { formatMetric } from '../behaviour/metrics.js';
import { comparisonCharts } from '../charts/run-charts.js';
import { escapeXml } from '../charts/svg.js';
import type { ComparedValue, RunComparison, RunSide } from './compare-runs.js';

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; color: #1d2430; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; } h3 { font-size: 1em; margin: 1.2em 0 0.3em; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { border-bottom: 1px solid #dde2ea; padding: 0.25em 0.7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.better { color: #1a7f37; } .worse { color: #c62828; } .muted { color: #6b7380; }
.charts { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
.charts svg { max-width: 100%; height: auto; }
code { font-size: 0.92em; }
`;

/** `openforge compare --html`: the comparison as one HTML file that needs nothing else (styles and charts inline). */
export function comparisonHtml(c: RunComparison): string {
  const level = Math.round(c.bootstrap.level * 100);
  const charts = comparisonCharts(c);
  const side = (name: string, s: RunSide) =>
    `<li><b>${name}</b> run <code>${escapeXml(s.runId)}</code> · harness ${escapeXml(s.harness)} · model ${escapeXml(s.upstream || '(unknown)')}${s.simulated ? ' (SIMULATED)' : ''} · ${s.rollouts} rollouts</li>`;
  const flipped = c.flipped.map((t) => {
    const links = (name: 'a' | 'b') =>
      t.links[name].map((l) => `<a href="${escapeXml(l.url)}">${escapeXml(l.rolloutId)}</a> (reward ${l.reward ?? 'none'})`).join(', ');
    return `<li><b>${escapeXml(t.taskId)}</b>: ${t.outcome.a} → ${t.outcome.b}<br>A ${links('a')}<br>B ${links('b')}</li>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Compare ${escapeXml(c.a.runId)} and ${escapeXml(c.b.runId)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>Compare runs</h1>
<ul>${side('A', c.a)}${side('B', c.b)}</ul>
<p class="muted">${c.tasks.length} task(s) in both. B − A with its ${level}% bootstrap interval: ${c.bootstrap.resamples} resamples of the rollouts within each task, seed ${c.bootstrap.seed}.${
    c.onlyIn.a.length + c.onlyIn.b.length > 0 ? ` Left out, in one run only: ${escapeXml([...c.onlyIn.a, ...c.onlyIn.b].join(', '))}.` : ''
  }</p>
<h2>Overall</h2>
${valueTable(c.overall, level)}
<h2>Outcome flipped</h2>
${flipped.length > 0 ? `<ul>${flipped.join('')}</ul>` : '<p class="muted">No task flipped (pass: every rollout passed, fail: none did).</p>'}
<h2>Charts</h2>
<div class="charts">${charts.map((chart) => chart.svg).join('\n')}</div>
<h2>Per task</h2>
${c.tasks.map((t) => `<h3>${escapeXml(t.taskId)} <span class="muted">A ${t.outcome.a} · B ${t.outcome.b}</span></h3>${valueTable(t.values, level)}`).join('\n')}
</body></html>
`;
}

function valueTable(values: readonly ComparedValue[], level: number): string {
  const rows = values.map((v) => {
    const direction = v.diff === null || v.diff === 0 || v.higherIsBetter === undefined ? '' : v.diff > 0 === v.higherIsBetter ? 'better' : 'worse';
    const interval = v.interval ? `[${formatMetric(v.unit, v.interval.low, true)}, ${formatMetric(v.unit, v.interval.high, true)}]` : '-';
    return `<tr><td>${escapeXml(v.label)}</td><td>${formatMetric(v.unit, v.a)}</td><td>${formatMetric(v.unit, v.b)}</td><td class="${direction}">${formatMetric(v.unit, v.diff, true)}</td><td>${interval}</td></tr>`;
  });
  return `<table><tr><th></th><th>A</th><th>B</th><th>B − A</th><th>${level}% interval</th></tr>${rows.join('')}</table>`;
}
