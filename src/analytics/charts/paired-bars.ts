import type { MetricUnit } from '../behaviour/metrics.js';
import { axisMax, valueText } from './scale.js';
import { clip, el, escapeXml, LOOK } from './svg.js';

export interface BarPair {
  label: string;
  a: number | null;
  b: number | null;
}

export interface PairedBarChart {
  key: string;
  title: string;
  unit: MetricUnit | 'reward';
  /** What A and B are, for the legend (run ids). */
  names: { a: string; b: string };
  pairs: readonly BarPair[];
}

const LABEL_W = 170;
const BAR_W = 190;
const VALUE_W = 60;
const BAR_H = 9;
const ROW_H = 2 * BAR_H + 6;
const TOP = 38;

/** Two runs side by side: for each label a bar for A above one for B, each group carrying `data-label`, `data-side` and `data-value`. */
export function pairedBarChart(chart: PairedBarChart): string {
  const max = axisMax(
    chart.unit,
    chart.pairs.flatMap((p) => [p.a, p.b]),
  );
  const width = LABEL_W + BAR_W + VALUE_W;
  const height = TOP + chart.pairs.length * ROW_H + 4;
  const bar = (label: string, side: 'a' | 'b', value: number | null, y: number) => {
    const w = value === null ? 0 : (Math.max(0, value) / max) * BAR_W;
    return el(
      'g',
      { class: `point side-${side}`, 'data-label': label, 'data-side': side, 'data-value': value === null ? '' : String(value) },
      el('title', {}, escapeXml(`${label} · ${side.toUpperCase()} ${chart.names[side]}: ${valueText(chart.unit, value)}`)),
      value === null ? '' : el('rect', { x: LABEL_W, y, width: w, height: BAR_H, class: `bar side-${side}`, ...(side === 'a' ? LOOK.bar : LOOK.barB) }),
      el('text', { x: LABEL_W + w + 4, y: y + BAR_H - 1, class: 'value', ...LOOK.muted }, escapeXml(valueText(chart.unit, value))),
    );
  };
  const rows = chart.pairs.map((p, i) => {
    const y = TOP + i * ROW_H;
    return [
      el('text', { x: LABEL_W - 6, y: y + BAR_H + 3, 'text-anchor': 'end', class: 'label', ...LOOK.text }, escapeXml(clip(p.label, 26))),
      bar(p.label, 'a', p.a, y),
      bar(p.label, 'b', p.b, y + BAR_H + 1),
    ].join('');
  });
  const legend = (['a', 'b'] as const).map((side, i) =>
    el(
      'g',
      {},
      el('rect', { x: i * 170, y: 20, width: 10, height: 10, class: `bar side-${side}`, ...(side === 'a' ? LOOK.bar : LOOK.barB) }),
      el('text', { x: i * 170 + 14, y: 29, class: 'legend', ...LOOK.text }, escapeXml(`${side.toUpperCase()} ${clip(chart.names[side], 22)}`)),
    ),
  );
  return el(
    'svg',
    { class: 'chart paired', 'data-chart': chart.key, viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': chart.title },
    el('text', { x: 0, y: 14, class: 'title', ...LOOK.title }, escapeXml(chart.title)),
    ...legend,
    el('line', { x1: LABEL_W, y1: TOP - 2, x2: LABEL_W, y2: height - 2, class: 'axis', ...LOOK.axis }),
    ...rows,
  );
}
