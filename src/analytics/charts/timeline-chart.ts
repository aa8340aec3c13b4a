import { formatMetric } from '../behaviour/metrics.js';
import type { RolloutTimeline } from '../rollout-timeline.js';
import { el, escapeXml, LOOK, round } from './svg.js';

const WIDTH = 900;
const LANE_W = 90;
const LANE_H = 22;
const TOP = 8;
const PLOT_W = WIDTH - LANE_W - 10;

const PHASE_COLOURS: Record<string, string> = {
  image: '#bab0ac',
  start: '#9ecae9',
  environment: '#b279a2',
  setup: '#ff9da6',
  agent: '#54a24b',
  verify: '#eeca3b',
  collect: '#72b7b2',
  teardown: '#d8b5a5',
};

/**
 * A rollout's timeline as SVG: a lane of phases, one of model calls and one of tool runs, on one time axis.
 * Each mark carries what it is (`data-phase`, `data-seq`, `data-after-seq`) and its `data-start` and
 * `data-end` in milliseconds from the rollout's start; hovering one names it.
 */
export function timelineChart(t: RolloutTimeline): string {
  const x = (ms: number) => LANE_W + (ms / t.length) * PLOT_W;
  const w = (start: number, end: number) => Math.max(1, x(end) - x(start));
  const lane = (i: number) => TOP + i * (LANE_H + 6);
  const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const mark = (attrs: Record<string, string | number>, start: number, end: number, row: number, fill: string, tip: string, text = '') =>
    el(
      'g',
      { ...attrs, 'data-start': Math.round(start), 'data-end': Math.round(end) },
      el('title', {}, escapeXml(tip)),
      el('rect', { x: x(start), y: lane(row), width: w(start, end), height: LANE_H, fill, rx: 2 }),
      text && w(start, end) > text.length * 6 + 6 ? el('text', { x: x(start) + 4, y: lane(row) + 15, ...LOOK.text }, escapeXml(text)) : '',
    );
  const phases = t.phases.map((p) =>
    mark(
      { class: 'phase', 'data-phase': p.name },
      p.start,
      p.end,
      0,
      PHASE_COLOURS[p.name] ?? '#cccccc',
      `${p.name}: ${secs(p.end - p.start)} (from ${secs(p.start)})`,
      p.name,
    ),
  );
  const calls = t.calls.map((c) =>
    mark(
      { class: 'call', 'data-seq': c.seq },
      c.start,
      c.end,
      1,
      c.status !== 200 ? '#e45756' : c.label === 'policy' ? '#4c78a8' : '#9d9da3',
      `call ${c.seq} (${c.label}, status ${c.status}): ${secs(c.end - c.start)} at ${secs(c.start)}`,
      String(c.seq),
    ),
  );
  const tools = t.toolRuns.map((r) =>
    mark(
      { class: 'tool-run', 'data-after-seq': r.afterSeq, 'data-tools': r.tools.join(',') },
      r.start,
      r.end,
      2,
      '#f58518',
      `${r.tools.join(', ')} after call ${r.afterSeq}: ${secs(r.end - r.start)}`,
      r.tools.join(', '),
    ),
  );
  const axisY = lane(3) + 4;
  const ticks = axisTicks(t.length).map((ms) =>
    [
      el('line', { x1: x(ms), y1: axisY, x2: x(ms), y2: axisY + 4, ...LOOK.axis }),
      el('text', { x: x(ms), y: axisY + 15, 'text-anchor': 'middle', ...LOOK.muted }, `${round(ms / 1000)} s`),
    ].join(''),
  );
  const laneLabels = ['phases', 'model calls', 'tool runs'].map((name, i) => el('text', { x: 0, y: lane(i) + 15, ...LOOK.text }, name));
  // every phase's time in words, the short ones too narrow to label in their lane among them
  const durations = t.phases.map((p) => `${p.name} ${formatMetric('ms', p.end - p.start)}`).join(' · ');
  const legend = el('text', { x: LANE_W, y: axisY + 34, class: 'durations', ...LOOK.muted }, escapeXml(durations));
  const height = axisY + 42;
  return el(
    'svg',
    { class: 'chart timeline', 'data-chart': 'timeline', viewBox: `0 0 ${WIDTH} ${height}`, width: '100%', role: 'img', 'aria-label': 'rollout timeline' },
    ...laneLabels,
    ...phases,
    ...calls,
    ...tools,
    el('line', { x1: LANE_W, y1: axisY, x2: LANE_W + PLOT_W, y2: axisY, ...LOOK.axis }),
    ...ticks,
    legend,
  );
}

/** Round tick positions (1, 2 or 5 × 10ⁿ ms apart), about six along the axis. */
function axisTicks(length: number): number[] {
  const raw = length / 6;
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let ms = 0; ms <= length; ms += step) ticks.push(ms);
  return ticks;
}
