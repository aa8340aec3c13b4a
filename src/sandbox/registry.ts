import { UserError } from '../util/errors.js';
import type { BackendPlugin } from './backend-plugin.js';
import { dockerPlugin } from './docker/plugin.js';
import { kubernetesPlugin } from './kubernetes/plugin.js';
import type { SandboxBackend } from './types.js';

/** Every sandbox backend a run can name; a new one is a folder with its plugin plus one entry here. */
const BACKENDS = new Map<string, BackendPlugin<never>>([dockerPlugin, kubernetesPlugin].map((b) => [b.name, b as BackendPlugin<never>]));

/** Adds a backend (a plugin's, or a test's) to those run.yaml may name. A name already taken is refused. */
export function registerBackend<Section>(plugin: BackendPlugin<Section>): void {
  if (BACKENDS.has(plugin.name)) throw new UserError(`a sandbox backend named "${plugin.name}" is already registered`);
  BACKENDS.set(plugin.name, plugin as BackendPlugin<never>);
}

export function backendNames(): string[] {
  return [...BACKENDS.keys()];
}

export function backendPlugin(name: string): BackendPlugin<unknown> {
  const plugin = BACKENDS.get(name);
  if (!plugin) throw new UserError(`unknown sandbox backend "${name}"`, `use one of: ${backendNames().join(', ')}`);
  return plugin as BackendPlugin<unknown>;
}

/** The backend a run config names, made from its section. */
export function createBackend(config: { backend: string } & Record<string, unknown>): Promise<SandboxBackend> {
  return backendPlugin(config.backend).create(config[config.backend]);
}
