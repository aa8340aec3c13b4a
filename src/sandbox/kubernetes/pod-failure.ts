import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { RolloutError } from '../../util/errors.js';
import { ROLLOUT_CONTAINER } from './pod-manifest.js';

/** Why a rollout pod cannot (or can no longer) run, as the API server reports it. */
export type PodFailureReason =
  | 'ImagePullBackOff'
  | 'ErrImagePull'
  | 'InvalidImageName'
  | 'CrashLoopBackOff'
  | 'CreateContainerConfigError'
  | 'CreateContainerError'
  | 'OOMKilled'
  | 'Unschedulable'
  | 'DeadlineExceeded'
  | 'Evicted'
  | 'ContainerExited'
  | 'Deleted';

const WAITING_FAILURES = new Set<string>([
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
]);
const IMAGE_REASONS = new Set<string>(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName']);

/** A typed pod failure: OOMKilled counts as the rollout's oom_killed, everything else as infrastructure. */
export class PodFailure extends RolloutError {
  constructor(
    readonly reason: PodFailureReason,
    message: string,
  ) {
    super(reason === 'OOMKilled' ? 'oom_killed' : 'infrastructure', `pod ${reason}: ${message}`);
    this.name = 'PodFailure';
  }
}

/** The failure a pod's status shows, if any. Pending and running pods without one return undefined. */
export function podFailure(pod: V1Pod): PodFailure | undefined {
  const status = pod.status ?? {};
  if (status.reason === 'DeadlineExceeded') {
    return new PodFailure(
      'DeadlineExceeded',
      `the pod ran past its activeDeadlineSeconds (${pod.spec?.activeDeadlineSeconds ?? '?'} s, the sandbox lifetime) and was stopped`,
    );
  }
  if (status.reason === 'Evicted') return new PodFailure('Evicted', status.message ?? 'the node evicted the pod');
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    return new PodFailure(
      'Unschedulable',
      `${scheduled.message ?? 'no node fits the pod'} (lower kubernetes.resources or max_pods, or check node_selector / tolerations / runtime_class)`,
    );
  }
  const containers: V1ContainerStatus[] = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  for (const c of containers) {
    const waiting = c.state?.waiting;
    if (waiting?.reason && WAITING_FAILURES.has(waiting.reason)) {
      const hint = IMAGE_REASONS.has(waiting.reason)
        ? ' (push it with `openforge images push --registry <kubernetes.images.registry>`, and check images.pull_secrets)'
        : '';
      return new PodFailure(waiting.reason as PodFailureReason, `container ${c.name}, image ${c.image}: ${waiting.message ?? waiting.reason}${hint}`);
    }
    const terminated = c.state?.terminated ?? c.lastState?.terminated;
    if (terminated?.reason === 'OOMKilled') {
      return new PodFailure('OOMKilled', `container ${c.name} was killed for exceeding its memory limit (exit ${terminated.exitCode})`);
    }
    if (c.name === ROLLOUT_CONTAINER && c.state?.terminated) {
      return new PodFailure('ContainerExited', `the rollout container ended (${terminated!.reason ?? 'exit'} ${terminated!.exitCode})`);
    }
    if (terminated && terminated.exitCode !== 0 && status.phase === 'Failed') {
      return new PodFailure(
        'ContainerExited',
        `container ${c.name} failed (${terminated.reason ?? 'exit'} ${terminated.exitCode}): ${terminated.message ?? ''}`.trim(),
      );
    }
  }
  if (status.phase === 'Failed' || status.phase === 'Succeeded')
    return new PodFailure('ContainerExited', `the pod is ${status.phase}${status.message ? `: ${status.message}` : ''}`);
  return undefined;
}

/** Running, with the rollout container started (exec-readiness is probed separately, with a real exec). */
export function podRunning(pod: V1Pod): boolean {
  const main = pod.status?.containerStatuses?.find((c) => c.name === ROLLOUT_CONTAINER);
  return pod.status?.phase === 'Running' && !!main?.state?.running;
}
