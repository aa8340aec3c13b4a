import type { Task } from '../config/task.js';
import type { Harness } from '../harness/types.js';
import type { ImageBuilder } from '../sandbox/docker/images.js';
import type { VolumeMount } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';

/**
 * One image build per task for the lifetime of a run (or service): concurrent rollouts of a task share
 * it, and a failed build fails that task's rollouts fast instead of rebuilding for each. Any other failure
 * (the engine restarting, unreachable) is forgotten, so the rollout's retry asks the engine again.
 */
export class TaskImages {
  private readonly builds = new Map<string, Promise<string>>();
  private readonly layers = new Map<string, Promise<VolumeMount[]>>();

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

  /** The volumes a harness needs: its npm-installed layer (built and copied into its volume once), if any. */
  harnessMounts(harness: Harness): Promise<VolumeMount[]> {
    const layer = harness.layer;
    if (!layer) return Promise.resolve([]);
    let p = this.layers.get(layer);
    if (!p) {
      p = this.builder.ensureHarnessVolume(layer).then((m) => [m]);
      this.layers.set(layer, p);
      forgetUnlessBuildFailed(this.layers, layer, p);
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
