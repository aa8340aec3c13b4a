import { Registry } from '../../util/registry.js';
import { sftExporter } from './sft.js';
import type { Exporter } from './types.js';
import { verlExporter } from './verl.js';

/** Every training-data format `openforge export` writes; a new one is a file plus one entry here. */
const EXPORTERS = new Registry<Exporter>('export format', [verlExporter, sftExporter]);

/** Adds a format (a plugin's, or a test's). A name already taken is refused. */
export const registerExporter = (exporter: Exporter): void => EXPORTERS.add(exporter);
export const exporters = (): Exporter[] => EXPORTERS.all();
export const exporterNamed = (name: string): Exporter => EXPORTERS.get(name);
