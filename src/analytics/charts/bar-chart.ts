import type { MetricUnit } from '../behaviour/metrics.js';
import { axisMax, valueText } from './scale.js';
import { clip, el, escapeXml, LOOK } from './svg.js';

export interface Bar {
  label: string;
  value: number | null;
}

export interface BarChart {
  /** Names the chart in its markup (`data-chart`), e.g. a metric's key. */
  key: string;
  title: string;
  unit: MetricUnit | 'reward';
  bars: readonly Bar[];
}

const LABEL_W = 170;
const BAR_W = 190;
const VALUE_W = 60;
const ROW_H = 18;
const TOP = 24;

/**
 * A horizontal bar chart as SVG, one row per label (task names are long): each bar's group carries its
 * `data-label` and `data-value` (empty when the value is missing, which draws no bar).
 */
export function barChart(chart: BarChart): string {
  const max = axisMax(
    chart.unit,
    chart.bars.map((b) => b.value),
  );
  const width = LABEL_W + BAR_W + VALUE_W;
  const height = TOP + chart.bars.length * ROW_H + 6;
  const rows = chart.bars.map((bar, i) => {
    const y = TOP + i * ROW_H;
    const w = bar.value === null ? 0 : (Math.max(0, bar.value) / max) * BAR_W;
    return el(
      'g',
      { class: 'point', 'data-label': bar.label, 'data-value': bar.value === null ? '' : String(bar.value) },
      el('title', {}, escapeXml(`${bar.label}: ${valueText(chart.unit, bar.value)}`)),
      el('text', { x: LABEL_W - 6, y: y + 12, 'text-anchor': 'end', class: 'label', ...LOOK.text }, escapeXml(clip(bar.label, 26))),
      bar.value === null ? '' : el('rect', { x: LABEL_W, y: y + 2, width: w, height: ROW_H - 5, class: 'bar', ...LOOK.bar }),
      el('text', { x: LABEL_W + w + 4, y: y + 12, class: 'value', ...LOOK.muted }, escapeXml(valueText(chart.unit, bar.value))),
    );
  });
  return el(
    'svg',
    { class: 'chart', 'data-chart': chart.key, viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': chart.title },
    el('text', { x: 0, y: 14, class: 'title', ...LOOK.title }, escapeXml(chart.title)),
    el('line', { x1: LABEL_W, y1: TOP - 2, x2: LABEL_W, y2: height - 4, class: 'axis', ...LOOK.axis }),
    ...rows,
  );
}
