import type { RunConfig } from '../config/run.js';
import type { Task } from '../config/task.js';
import type { Harness } from '../harness/types.js';
import type { RunNetwork, SandboxSpec, ServiceContainerSpec, VolumeMount } from '../sandbox/types.js';
import { environmentPhaseSec } from './gui-environment.js';

/** What a rollout asks its backend for; shared by the orchestrator and `openforge k8s render`, so both agree. */
export function rolloutSandboxSpec(opts: {
  runId: string;
  rolloutId: string;
  config: RunConfig;
  harness: Harness;
  task: Task;
  image: string;
  /** Where the agent starts: the image's WORKDIR or `[environment] workdir`; the image's own when absent. */
  workdir?: string;
  mounts: VolumeMount[];
  network: RunNetwork;
  /** Extra lifetime for a container kept after the rollout (`openforge debug`). */
  keepSec?: number;
  /** The task's services, their images resolved. */
  services?: ServiceContainerSpec[];
}): SandboxSpec {
  const { config, task, harness } = opts;
  const agentSec = config.timeouts.agent_sec ?? task.config.agent.timeout_sec;
  const verifierSec = config.timeouts.verifier_sec ?? task.config.verifier.timeout_sec;
  return {
    runId: opts.runId,
    rolloutId: opts.rolloutId,
    image: opts.image,
    ...(opts.workdir ? { workdir: opts.workdir } : {}),
    env: task.config.environment.env,
    resources: {
      cpus: task.config.environment.cpus ?? config.resources.cpus,
      memoryMb: Math.max(task.config.environment.memory_mb ?? config.resources.memory_mb, harness.minMemoryMb ?? 0),
      pids: config.resources.pids,
      ...(task.config.environment.storage_mb ? { storageMb: task.config.environment.storage_mb } : {}),
    },
    network: opts.network,
    mounts: opts.mounts,
    ...(config.sandbox?.runtime ? { runtime: config.sandbox.runtime } : {}),
    ...(opts.services?.length ? { services: opts.services } : {}),
    ...internetOf(task, opts.network),
    lifetimeSec:
      config.timeouts.start_sec +
      environmentPhaseSec(task) +
      config.timeouts.setup_sec +
      agentSec +
      verifierSec +
      config.timeouts.collect_sec +
      120 +
      (opts.keepSec ?? 0),
  };
}

/**
 * On a proxy-only network, what of the internet the task asks for: from the start (`[environment]
 * allow_internet`), or for its grader alone (`[verifier] allow_internet`). `public` has it already; `none` is
 * the run's choice to cut every rollout off, and holds.
 */
function internetOf(task: Task, network: RunNetwork): Pick<SandboxSpec, 'internet'> {
  if (network.mode !== 'proxy-only') return {};
  if (task.config.environment.allow_internet) return { internet: 'agent' };
  if (task.config.verifier.allow_internet) return { internet: 'verifier' };
  return {};
}
