import { Registry } from '../util/registry.js';
import type { BackendPlugin } from './backend-plugin.js';
import { dockerPlugin } from './docker/plugin.js';
import { kubernetesPlugin } from './kubernetes/plugin.js';
import type { SandboxBackend } from './types.js';

/** Every sandbox backend a run can name; a new one is a folder with its plugin plus one entry here. */
const BACKENDS = new Registry<BackendPlugin<unknown>>('sandbox backend', [dockerPlugin, kubernetesPlugin]);

/** Adds a backend (a plugin's, or a test's) to those run.yaml may name. A name already taken is refused. */
export function registerBackend<Section>(plugin: BackendPlugin<Section>): void {
  BACKENDS.add(plugin as BackendPlugin<unknown>);
}

export const backendNames = (): string[] => BACKENDS.names();
export const backendPlugin = (name: string): BackendPlugin<unknown> => BACKENDS.get(name);

/** The backend a run config names, made from its section. */
export function createBackend(config: { backend: string } & Record<string, unknown>): Promise<SandboxBackend> {
  return backendPlugin(config.backend).create(config[config.backend]);
}
