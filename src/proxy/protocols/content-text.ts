import { isRecord } from '../../util/is-record.js';

/** The text of a message's or a tool result's content: a string as it is, or the `text` of each part joined (images and other parts left out). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

/** A count the answer's `usage` reports, or undefined. */
export function usageCount(usage: Record<string, unknown>, key: string): number | undefined {
  const value = usage[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
