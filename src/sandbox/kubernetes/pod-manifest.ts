import type { V1Container, V1OwnerReference, V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { RolloutError } from '../../util/errors.js';
import { LABEL_OWNER, LABEL_ROLLOUT, LABEL_RUN } from '../labels.js';
import type { SandboxSpec } from '../types.js';
import type { KubernetesSection } from './config.js';
import { registryRef } from './image-refs.js';
import { labelValue, podName } from './names.js';
import { parseQuantity } from './quantity.js';
import { MANAGED_BY } from './run-owner.js';

/** The container every exec goes to. */
export const ROLLOUT_CONTAINER = 'rollout';
/** Capabilities a rollout keeps (as on Docker): what root needs to work on its own files. */
const KEPT_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID'];
const HARNESS_COPY_DIR = '/openforge-harness-copy';
const LIFETIME_GRACE_SEC = 30;

/**
 * One Pod per rollout: never restarted, ended by the API server at its deadline (the sandbox's finite
 * lifetime), no service-account token, capabilities dropped, requests/limits set, labelled by run and
 * rollout and owned by the run's ConfigMap.
 */
export function rolloutPod(opts: { spec: SandboxSpec; settings: KubernetesSection; owner: string; ownerReference?: V1OwnerReference }): V1Pod {
  const { spec, settings } = opts;
  const lifetime = Math.ceil(spec.lifetimeSec);
  const pullPolicy = settings.images.pull_policy;
  const volumes: V1Volume[] = [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }];
  const mounts: V1VolumeMount[] = [{ name: 'dshm', mountPath: '/dev/shm' }];
  const initContainers: V1Container[] = [];
  spec.mounts?.forEach((m, i) => {
    if (!m.image) throw new RolloutError('infrastructure', `volume ${m.volume} names no image, so a cluster cannot provide it`);
    const name = `layer-${i}`;
    const image = registryRef(settings.images.registry, m.image);
    if (settings.harness_install === 'image-volume') {
      // The volume is the harness image's whole filesystem; its install sits at the same path inside it.
      volumes.push({ name, image: { reference: image, pullPolicy } });
      mounts.push({ name, mountPath: m.target, readOnly: m.readOnly, subPath: m.target.replace(/^\/+/, '') });
      return;
    }
    volumes.push({ name, emptyDir: {} });
    mounts.push({ name, mountPath: m.target, readOnly: m.readOnly });
    initContainers.push({
      name: `copy-${name}`,
      image,
      imagePullPolicy: pullPolicy,
      command: ['cp', '-a', `${m.target}/.`, `${HARNESS_COPY_DIR}/`],
      volumeMounts: [{ name, mountPath: HARNESS_COPY_DIR }],
      resources: { limits: { cpu: '1', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
      securityContext: containerSecurity(),
    });
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(spec.rolloutId),
      namespace: settings.namespace,
      labels: {
        ...Object.fromEntries(Object.entries(spec.labels ?? {}).map(([k, v]) => [k, labelValue(v)])),
        ...MANAGED_BY,
        [LABEL_RUN]: labelValue(spec.runId),
        [LABEL_ROLLOUT]: labelValue(spec.rolloutId),
      },
      annotations: { [LABEL_OWNER]: opts.owner, [LABEL_RUN]: spec.runId, [LABEL_ROLLOUT]: spec.rolloutId },
      ownerReferences: opts.ownerReference ? [opts.ownerReference] : undefined,
    },
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: lifetime,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      // The pause container becomes PID 1 and reaps zombies, as `docker run --init` does.
      shareProcessNamespace: true,
      terminationGracePeriodSeconds: 5,
      runtimeClassName: spec.runtime ?? settings.runtime_class,
      nodeSelector: Object.keys(settings.node_selector).length ? settings.node_selector : undefined,
      tolerations: settings.tolerations.length ? settings.tolerations : undefined,
      imagePullSecrets: settings.images.pull_secrets.length ? settings.images.pull_secrets.map((name) => ({ name })) : undefined,
      securityContext: {
        seccompProfile: { type: 'RuntimeDefault' },
        ...(settings.run_as_user
          ? { runAsNonRoot: true, runAsUser: settings.run_as_user, runAsGroup: settings.run_as_user, fsGroup: settings.run_as_user }
          : {}),
      },
      initContainers: initContainers.length ? initContainers : undefined,
      containers: [
        {
          name: ROLLOUT_CONTAINER,
          image: registryRef(settings.images.registry, spec.image),
          imagePullPolicy: pullPolicy,
          // The only long-lived process ends by itself, just after activeDeadlineSeconds has ended the pod
          // (so the end is reported as DeadlineExceeded, not as an exited container).
          command: ['sleep', String(lifetime + LIFETIME_GRACE_SEC)],
          workingDir: spec.workdir,
          env: Object.entries(spec.env ?? {}).map(([name, value]) => ({ name, value })),
          resources: podResources(spec, settings),
          securityContext: containerSecurity(),
          volumeMounts: mounts,
        },
      ],
      volumes,
    },
  };
}

function containerSecurity(): V1Container['securityContext'] {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: KEPT_CAPABILITIES } };
}

/**
 * Limits follow the sandbox's resources (the run's, a task's own, a harness's minimum) unless the
 * kubernetes section sets them; requests default to the limits (Guaranteed QoS) and never exceed them.
 */
export function podResources(spec: SandboxSpec, settings: KubernetesSection): { limits: Record<string, string>; requests: Record<string, string> } {
  const limits: Record<string, string> = {
    cpu: settings.resources.limits?.cpu ?? String(spec.resources.cpus),
    memory: settings.resources.limits?.memory ?? `${spec.resources.memoryMb}Mi`,
  };
  if (settings.resources.limits?.['ephemeral-storage']) limits['ephemeral-storage'] = settings.resources.limits['ephemeral-storage'];
  const requests: Record<string, string> = { ...limits };
  for (const [what, value] of Object.entries(settings.resources.requests ?? {})) {
    if (value === undefined) continue;
    const limit = limits[what];
    requests[what] = limit !== undefined && parseQuantity(value)! > parseQuantity(limit)! ? limit : value;
  }
  return { limits, requests };
}
