import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../../util/errors.js';
import { parseMind2Web } from './mind2web.js';
import type { ImportSource, ImportedTask } from './types.js';
import { parseWebVoyager } from './webvoyager.js';
import { readJudgeScript, writeImportedTask } from './write-task.js';

export type { ImportedTask, ImportSource } from './types.js';
export const IMPORT_SOURCES: ImportSource[] = ['webvoyager', 'mind2web'];

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
export function importTasks(from: string, file: string, outDir: string): { tasks: ImportedTask[]; dirs: string[] } {
  if (!IMPORT_SOURCES.includes(from as ImportSource)) throw new UserError(`unknown task source "${from}"`, `use one of: ${IMPORT_SOURCES.join(', ')}`);
  const tasks = parseTaskFile(from as ImportSource, file);
  const judge = readJudgeScript();
  const dirs = tasks.map((t) => writeImportedTask(t, path.resolve(outDir), judge));
  return { tasks, dirs };
}
