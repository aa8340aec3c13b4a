import type { RunConfig } from '../config/run.js';
import { DockerBackend } from './docker/backend.js';
import { KubernetesBackend } from './kubernetes/backend.js';
import type { SandboxBackend } from './types.js';

/** The backend a run config names. */
export function backendFor(config: Pick<RunConfig, 'backend' | 'kubernetes'>): SandboxBackend {
  if (config.backend === 'kubernetes') return new KubernetesBackend(config.kubernetes!);
  return new DockerBackend();
}
