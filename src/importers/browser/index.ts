import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../../util/errors.js';
import { parseMind2Web } from './mind2web.js';
import type { ImportReport, TaskImporter } from '../types.js';
import type { ImportSource, ImportedTask } from './types.js';
import { parseWebVoyager } from './webvoyager.js';
import { readJudgeScript, writeImportedTask } from './write-task.js';

export type { ImportedTask, ImportSource } from './types.js';

export function parseTaskFile(from: ImportSource, file: string): ImportedTask[] {
  if (!existsSync(file)) throw new UserError(`task file ${file} does not exist`);
  const text = readFileSync(file, 'utf8');
  const tasks = from === 'webvoyager' ? parseWebVoyager(text, file) : parseMind2Web(text, file);
  if (tasks.length === 0) throw new UserError(`${file} holds no tasks`);
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.id)) throw new UserError(`${file}: two tasks share the id "${t.id}"`, 'task ids must be unique within a file');
    seen.add(t.id);
  }
  return tasks;
}

/** Reads a WebVoyager or Online-Mind2Web task file and writes one Harbor browser task per entry into outDir. */
export function importTasks(from: ImportSource, file: string, outDir: string): { tasks: ImportedTask[]; dirs: string[] } {
  const tasks = parseTaskFile(from, file);
  const judge = readJudgeScript();
  const dirs = tasks.map((t) => writeImportedTask(t, path.resolve(outDir), judge));
  return { tasks, dirs };
}

function liveSiteImporter(name: ImportSource, description: string, source: string): TaskImporter {
  return {
    name,
    description,
    source,
    async import(file: string, outDir: string): Promise<ImportReport> {
      return { written: importTasks(name, file, outDir).dirs, skipped: [] };
    },
  };
}

/** Live-site browser tasks, graded by an LLM judge: run them with network: public. */
export const webVoyagerImporter = liveSiteImporter(
  'webvoyager',
  'WebVoyager live-site browser tasks, graded by an LLM judge (network: public)',
  'a WebVoyager task file (JSONL)',
);
export const mind2webImporter = liveSiteImporter(
  'mind2web',
  'Online-Mind2Web live-site browser tasks, graded by an LLM judge (network: public)',
  'an Online-Mind2Web task file (JSON)',
);
