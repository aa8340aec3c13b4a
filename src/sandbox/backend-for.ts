import type { RunConfig } from '../config/run.js';
import { DockerBackend } from './docker/backend.js';
import type { SandboxBackend } from './types.js';

/**
 * The backend a run config names. The Kubernetes client is loaded only when a run asks for it: it costs
 * about a second of CPU at import, which every other CLI command would otherwise pay.
 */
export async function backendFor(config: Pick<RunConfig, 'backend' | 'kubernetes'>): Promise<SandboxBackend> {
  if (config.backend === 'kubernetes') {
    const { KubernetesBackend } = await import('./kubernetes/backend.js');
    return new KubernetesBackend(config.kubernetes!);
  }
  return new DockerBackend();
}
