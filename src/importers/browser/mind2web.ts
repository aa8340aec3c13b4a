import { z } from 'zod';
import { badRecord, safeId, siteUrl } from './parse-errors.js';
import type { ImportedTask } from './types.js';

/** An Online-Mind2Web task: {task_id, confirmed_task, website, reference_length, level}. */
const Mind2WebRecord = z.looseObject({
  task_id: z.string().min(1),
  confirmed_task: z.string().min(1),
  website: z.string().min(1),
  reference_length: z.number().int().nonnegative().optional(),
  level: z.enum(['easy', 'medium', 'hard']).optional(),
});

/** Parses Online-Mind2Web's task file: a JSON array of tasks (a single object or JSON lines also load). */
export function parseMind2Web(text: string, file: string): ImportedTask[] {
  let records: unknown[];
  const trimmed = text.trim();
  try {
    const whole = JSON.parse(trimmed) as unknown;
    records = Array.isArray(whole) ? whole : [whole];
  } catch {
    records = trimmed
      .split('\n')
      .filter((l) => l.trim())
      .map((line, i) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (err) {
          throw badRecord(file, `line ${i + 1}`, `not valid JSON (${(err as Error).message})`, 'an Online-Mind2Web file is a JSON array of task objects');
        }
      });
  }
  return records.map((raw, index) => {
    const where = `task ${index + 1}`;
    const parsed = Mind2WebRecord.safeParse(raw);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => `${i.path.join('.') || '(record)'} (${i.message})`).join(', ');
      throw badRecord(file, where, `bad field(s): ${fields}`, 'each task needs task_id, confirmed_task, website; level is easy|medium|hard');
    }
    const r = parsed.data;
    const startUrl = siteUrl(r.website);
    if (!startUrl) throw badRecord(file, where, `"website" is not a site URL: ${r.website}`, 'give the site, e.g. https://www.example.com/');
    const metadata: Record<string, string | number> = { source_id: r.task_id };
    if (r.level) metadata.level = r.level;
    if (r.reference_length !== undefined) metadata.reference_length = r.reference_length;
    return {
      id: safeId(`mind2web-${r.task_id}`),
      source: 'mind2web' as const,
      task: r.confirmed_task.trim(),
      website: new URL(startUrl).hostname,
      startUrl,
      metadata,
    };
  });
}
