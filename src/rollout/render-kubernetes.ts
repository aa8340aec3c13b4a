import Docker from 'dockerode';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { LoadedRunConfig } from '../config/run.js';
import { AGENT_NODE_DIR, harnessRoot } from '../sandbox/harness-layer.js';
import { VERIFIER_TOOLS_DIR } from '../sandbox/verifier-tools.js';
import { harnessFor } from '../harness/registry.js';
import { rolloutSandboxSpec } from './sandbox-spec.js';
import { loadAllTasks } from './run.js';
import { UserError } from '../util/errors.js';
import { ImageBuilder } from '../sandbox/docker/images.js';
import { ownerLabel } from '../util/process-owner.js';
import type { VolumeMount } from '../sandbox/types.js';
import { proxyAddress, type KubernetesSection } from '../sandbox/kubernetes/config.js';
import { runNetworkPolicy } from '../sandbox/kubernetes/network-policy.js';
import { rolloutPod } from '../sandbox/kubernetes/pod-manifest.js';
import { ownedBy, runOwnerConfigMap } from '../sandbox/kubernetes/run-owner.js';

/** Stands in for the uid the API server gives the run's ConfigMap when it is created. */
export const RENDERED_OWNER_UID = '00000000-0000-4000-8000-000000000000';

/**
 * Every object a run would create on the cluster, in creation order: the run's owner ConfigMap, its
 * NetworkPolicy, and one Pod per rollout (first attempts). Image tags are computed from the task and
 * harness inputs, as the image builder would tag them; nothing is built and the cluster is not contacted.
 */
export function renderRun(loaded: LoadedRunConfig, runId = 'run-rendered'): KubernetesObject[] {
  const { config } = loaded;
  const settings = kubernetesSettings(loaded);
  const harness = harnessFor(config);
  const tasks = loadAllTasks(loaded.taskPaths);
  const builder = new ImageBuilder(new Docker());
  const owner = ownerLabel();
  const proxy = proxyAddress(settings);
  const network = { mode: config.network, name: runId, proxyHost: proxy.host, proxyPort: proxy.port };
  const mounts: VolumeMount[] = [
    { volume: 'verifier-tools', target: VERIFIER_TOOLS_DIR, readOnly: true, image: builder.verifierToolsTag() },
    ...(harness.layer
      ? [{ volume: `harness-${harness.layer}`, target: harnessRoot(harness.layer), readOnly: true, image: builder.harnessImageTag(harness.layer) }]
      : []),
    ...(harness.agentNode ? [{ volume: 'agent-node', target: AGENT_NODE_DIR, readOnly: true, image: builder.agentNodeTag() }] : []),
  ];
  const ownerReference = ownedBy(runId, RENDERED_OWNER_UID);
  const objects: KubernetesObject[] = [
    runOwnerConfigMap(runId, settings.namespace, owner),
    runNetworkPolicy({ runId, namespace: settings.namespace, mode: config.network, proxy, ownerReference }),
  ];
  for (const task of tasks) {
    if (task.services?.length) {
      throw new UserError(
        `task ${task.id} declares services (environment/docker-compose.yaml), which a rendered pod does not run`,
        'run it with backend: docker',
      );
    }
    const image = builder.taskImageTag(task);
    for (let i = 0; i < config.rollouts_per_task; i++) {
      const rolloutId = `${runId}.${task.id}.${i}.1`;
      const spec = rolloutSandboxSpec({ runId, rolloutId, config, harness, task, image, workdir: task.config.environment.workdir, mounts, network });
      objects.push(rolloutPod({ spec, settings, owner, ownerReference }));
    }
  }
  return objects;
}

export function kubernetesSettings(loaded: LoadedRunConfig): KubernetesSection {
  if (loaded.config.backend !== 'kubernetes' || !loaded.config.kubernetes) {
    throw new UserError(
      `${loaded.file}: backend is "${loaded.config.backend}", not kubernetes`,
      'set backend: kubernetes and a kubernetes section, or make one with `openforge promote`',
    );
  }
  return loaded.config.kubernetes;
}
