import type { Task } from '../config/task.js';
import type { Harness } from '../harness/types.js';
import type { ImageBuilder } from '../sandbox/docker/images.js';
import type { ServiceContainerSpec, VolumeMount } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';

/**
 * One image build per task for the lifetime of a run (or service): concurrent rollouts of a task share
 * it, and a failed build fails that task's rollouts fast instead of rebuilding for each. Any other failure
 * (the engine restarting, unreachable) is forgotten, so the rollout's retry asks the engine again.
 */
export class TaskImages {
  private readonly builds = new Map<string, Promise<string>>();
  private readonly volumes = new Map<string, Promise<VolumeMount>>();
  private readonly workdirs = new Map<string, Promise<string>>();
  private readonly serviceBuilds = new Map<string, Promise<ServiceContainerSpec[]>>();

  constructor(private readonly builder: ImageBuilder) {}

  get(task: Task): Promise<string> {
    let p = this.builds.get(task.id);
    if (!p) {
      p = this.builder.ensureTaskImage(task);
      this.builds.set(task.id, p);
      forgetUnlessBuildFailed(this.builds, task.id, p);
    }
    return p;
  }

  /** The containers of a task's services (environment/docker-compose.yaml), their images built or pulled once. */
  services(task: Task): Promise<ServiceContainerSpec[]> {
    if (!task.services?.length) return Promise.resolve([]);
    let p = this.serviceBuilds.get(task.id);
    if (!p) {
      p = Promise.all(
        task.services.map(async (s) => ({
          name: s.name,
          image: await this.builder.ensureServiceImage(task, s),
          env: s.env,
          ...(s.command ? { command: s.command } : {}),
          ...(s.entrypoint ? { entrypoint: s.entrypoint } : {}),
          ...(s.healthcheck ? { healthcheck: s.healthcheck } : {}),
        })),
      );
      this.serviceBuilds.set(task.id, p);
      forgetUnlessBuildFailed(this.serviceBuilds, task.id, p);
    }
    return p;
  }

  /**
   * Where a task's agent starts and its grader runs: `[environment] workdir`, else the WORKDIR of the image
   * the task runs in (`/` when it sets none), as Harbor runs a task.
   */
  workdir(task: Task, image: string): Promise<string> {
    const declared = task.config.environment.workdir;
    if (declared) return Promise.resolve(declared);
    let p = this.workdirs.get(image);
    if (!p) {
      p = this.builder.imageWorkdir(image);
      this.workdirs.set(image, p);
      p.catch(() => this.workdirs.delete(image));
    }
    return p;
  }

  /**
   * The volumes every rollout container of a harness mounts, each built and copied into its volume once: the
   * verifier's trusted tools, and the harness's npm-installed layer when it has one.
   */
  mounts(harness: Harness): Promise<VolumeMount[]> {
    return Promise.all([
      this.once('verifier-tools', () => this.builder.ensureVerifierToolsVolume()),
      ...(harness.layer ? [this.layer(harness.layer)] : []),
      ...(harness.agentNode ? [this.once('agent-node', () => this.builder.ensureAgentNodeVolume())] : []),
    ]);
  }

  private layer(name: string): Promise<VolumeMount> {
    return this.once(`harness ${name}`, () => this.builder.ensureHarnessVolume(name));
  }

  private once(key: string, make: () => Promise<VolumeMount>): Promise<VolumeMount> {
    let p = this.volumes.get(key);
    if (!p) {
      p = make();
      this.volumes.set(key, p);
      forgetUnlessBuildFailed(this.volumes, key, p);
    }
    return p;
  }
}

function forgetUnlessBuildFailed<T>(cache: Map<string, Promise<T>>, key: string, p: Promise<T>): void {
  p.catch((err) => {
    const buildFailed = err instanceof RolloutError && err.type === 'build';
    if (!buildFailed && cache.get(key) === p) cache.delete(key);
  });
}
