import { UserError } from '../../util/errors.js';
import { sftExporter } from './sft.js';
import type { Exporter } from './types.js';
import { verlExporter } from './verl.js';

/** Every training-data format `openforge export` writes; a new one is a file plus one entry here. */
const EXPORTERS = new Map<string, Exporter>([verlExporter, sftExporter].map((e) => [e.name, e]));

/** Adds a format (a plugin's, or a test's). A name already taken is refused. */
export function registerExporter(exporter: Exporter): void {
  if (EXPORTERS.has(exporter.name)) throw new UserError(`an export format named "${exporter.name}" is already registered`);
  EXPORTERS.set(exporter.name, exporter);
}

export function exporters(): Exporter[] {
  return [...EXPORTERS.values()];
}

export function exporterNamed(name: string): Exporter {
  const exporter = EXPORTERS.get(name);
  if (!exporter) throw new UserError(`unknown export format "${name}"`, `use one of: ${[...EXPORTERS.keys()].join(', ')}`);
  return exporter;
}
