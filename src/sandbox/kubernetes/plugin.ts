import path from 'node:path';
import type { BackendPlugin } from '../backend-plugin.js';
import { KubernetesSectionSchema, type KubernetesSection } from './config.js';

/** A Kubernetes cluster: one pod per rollout, a NetworkPolicy per run (docs/kubernetes.md). */
export const kubernetesPlugin: BackendPlugin<KubernetesSection> = {
  name: 'kubernetes',
  section: KubernetesSectionSchema,
  sectionHint: 'give it at least images.registry and proxy.address; see docs/kubernetes.md',
  resolvePaths(section, dir) {
    if (section.kubeconfig) section.kubeconfig = path.resolve(dir, section.kubeconfig);
  },
  // the client costs about a second of CPU at import, which every other command would otherwise pay
  create: async (section) => new (await import('./backend.js')).KubernetesBackend(section!),
};
