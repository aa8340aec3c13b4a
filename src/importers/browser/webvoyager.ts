import { z } from 'zod';
import { badRecord, safeId, siteUrl } from './parse-errors.js';
import type { ImportedTask } from './types.js';

/** A WebVoyager task line: {"web_name": "Amazon", "id": "Amazon--0", "ques": "…", "web": "https://www.amazon.com/"}. */
const WebVoyagerRecord = z.looseObject({ web_name: z.string().min(1), id: z.string().min(1), ques: z.string().min(1), web: z.string().min(1) });

/** Parses WebVoyager's JSONL task file (one JSON object per line; blank lines ignored). */
export function parseWebVoyager(text: string, file: string): ImportedTask[] {
  const tasks: ImportedTask[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    const where = `line ${index + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw badRecord(file, where, `not valid JSON (${(err as Error).message})`, 'a WebVoyager file has one JSON object per line');
    }
    const parsed = WebVoyagerRecord.safeParse(raw);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => i.path.join('.') || '(record)').join(', ');
      throw badRecord(file, where, `missing or empty field(s): ${fields}`, 'each line needs web_name, id, ques and web (strings)');
    }
    const r = parsed.data;
    const startUrl = siteUrl(r.web);
    if (!startUrl) throw badRecord(file, where, `"web" is not a site URL: ${r.web}`, 'give the start page, e.g. https://www.example.com/');
    tasks.push({
      id: safeId(`webvoyager-${r.id}`),
      source: 'webvoyager',
      task: r.ques.trim(),
      website: r.web_name,
      startUrl,
      metadata: { source_id: r.id, web_name: r.web_name },
    });
  });
  return tasks;
}
