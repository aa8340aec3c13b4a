import { UserError } from '../util/errors.js';
import { mind2webImporter, webVoyagerImporter } from './browser/index.js';
import type { TaskImporter } from './types.js';

/** Every benchmark `openforge tasks import --from` reads; a new one is a module plus one entry here. */
const IMPORTERS = new Map<string, TaskImporter>([webVoyagerImporter, mind2webImporter].map((i) => [i.name, i]));

/** Adds an importer (a plugin's, or a test's). A name already taken is refused. */
export function registerImporter(importer: TaskImporter): void {
  if (IMPORTERS.has(importer.name)) throw new UserError(`a task importer named "${importer.name}" is already registered`);
  IMPORTERS.set(importer.name, importer);
}

export function importers(): TaskImporter[] {
  return [...IMPORTERS.values()];
}

export function importerNamed(name: string): TaskImporter {
  const importer = IMPORTERS.get(name);
  if (!importer) throw new UserError(`unknown task source "${name}"`, `use one of: ${[...IMPORTERS.keys()].join(', ')}`);
  return importer;
}
