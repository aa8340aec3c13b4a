/** Text safe inside an SVG (or HTML) element or attribute. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** One element as markup: attributes escaped (undefined ones left out), children already markup. */
export function el(tag: string, attrs: Record<string, string | number | undefined>, ...children: string[]): string {
  const attributes = Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(typeof v === 'number' ? round(v) : v!)}"`)
    .join('');
  return `<${tag}${attributes}>${children.join('')}</${tag}>`;
}

/** A coordinate or value as short text: at most two decimals. */
export function round(x: number): string {
  return String(Math.round(x * 100) / 100);
}

/** A label cut to `max` characters, with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The charts' look, as presentation attributes: an SVG reads the same inside the inspector, a report or alone. */
export const LOOK = {
  text: { 'font-family': 'system-ui, sans-serif', 'font-size': 11, fill: '#1d2430' },
  title: { 'font-family': 'system-ui, sans-serif', 'font-size': 12, 'font-weight': 600, fill: '#1d2430' },
  muted: { 'font-family': 'system-ui, sans-serif', 'font-size': 10, fill: '#6b7380' },
  axis: { stroke: '#8a93a3', 'stroke-width': 1 },
  /** One run's bars, A's and B's. */
  bar: { fill: '#4c78a8' },
  barB: { fill: '#f58518' },
} as const;
