import { loadTasks } from '../../src/config/task.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';

/**
 * Builds the images of a suite's tasks (only `ids`, when given) before a test runs them, so that the
 * build is not timed as part of a rollout's start.
 */
export async function buildTaskImages(suite: string, ids?: readonly string[]): Promise<void> {
  const backend = new DockerBackend();
  await backend.check();
  const builder = new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA });
  for (const task of loadTasks(suite).filter((t) => !ids || ids.includes(t.id))) await builder.ensureTaskImage(task);
}
