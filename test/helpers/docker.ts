import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';

/** The real engine and the real workspace image (built once, then reused from the engine's cache). */
export async function workspaceImage(): Promise<{ backend: DockerBackend; image: string }> {
  const backend = new DockerBackend();
  await backend.check();
  const image = await new ImageBuilder(backend.docker).ensureWorkspace();
  return { backend, image };
}

/** The OCI runtimes the isolation tests run under: the engine's default, and gVisor's runsc when setup registered it. */
export async function isolationRuntimes(): Promise<(string | undefined)[]> {
  const { backend } = await workspaceImage();
  const info = (await backend.docker.info()) as { Runtimes?: Record<string, unknown> };
  return [undefined, ...(Object.keys(info.Runtimes ?? {}).includes('runsc') ? ['runsc'] : [])];
}
