import { Registry } from '../util/registry.js';
import { mind2webImporter, webVoyagerImporter } from './browser/index.js';
import { pinchbenchImporter, qwenclawbenchImporter } from './claw-md/index.js';
import { harborImporter } from './harbor/index.js';
import { clawEvalImporter } from './claw-eval/index.js';
import { osworldImporter } from './osworld/index.js';
import type { TaskImporter } from './types.js';

/** Every benchmark `openforge tasks import --from` reads; a new one is a module plus one entry here. */
const IMPORTERS = new Registry<TaskImporter>('task source', [
  harborImporter,
  pinchbenchImporter,
  qwenclawbenchImporter,
  clawEvalImporter,
  webVoyagerImporter,
  mind2webImporter,
  osworldImporter,
]);

/** Adds an importer (a plugin's, or a test's). A name already taken is refused. */
export const registerImporter = (importer: TaskImporter): void => IMPORTERS.add(importer);
export const importers = (): TaskImporter[] => IMPORTERS.all();
export const importerNamed = (name: string): TaskImporter => IMPORTERS.get(name);
