import type { BackendPlugin } from '../backend-plugin.js';

/** The local Docker engine: one container per rollout, networks per run. The default. */
export const dockerPlugin: BackendPlugin = {
  name: 'docker',
  create: async () => new (await import('./backend.js')).DockerBackend(),
};
