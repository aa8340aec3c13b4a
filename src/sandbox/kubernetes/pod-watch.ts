import { Watch, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { RolloutError } from '../../util/errors.js';
import { PodFailure, podFailure } from './pod-failure.js';

const REWATCH_DELAY_MS = 500;

/**
 * Follows one pod through the API server's watch (re-opened whenever the server ends it) and keeps its
 * latest state and its first failure, so readiness and failures come from events, not polling.
 */
export class PodWatch {
  latest?: V1Pod;
  failure?: PodFailure;
  private controller?: AbortController;
  private stopped = false;
  private waiters = new Set<() => void>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly namespace: string,
    private readonly name: string,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const watch = new Watch(this.kc);
    this.controller = await watch.watch(
      `/api/v1/namespaces/${this.namespace}/pods`,
      { fieldSelector: `metadata.name=${this.name}` },
      (type: string, pod: V1Pod) => {
        if (type === 'DELETED') this.failure ??= new PodFailure('Deleted', `pod ${this.name} was deleted from the cluster`);
        else if (type === 'ADDED' || type === 'MODIFIED') {
          this.latest = pod;
          this.failure ??= podFailure(pod);
        }
        for (const wake of this.waiters) wake();
      },
      () => {
        if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), REWATCH_DELAY_MS);
      },
    );
  }

  /** Resolves with the pod once `ready` holds; rejects with its typed failure, or after `timeoutMs`. */
  until(ready: (pod: V1Pod) => boolean, timeoutMs: number): Promise<V1Pod> {
    return new Promise((resolve, reject) => {
      const finish = (err?: Error) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (err) reject(err);
        else resolve(this.latest!);
      };
      const check = () => {
        if (this.failure) finish(this.failure);
        else if (this.latest && ready(this.latest)) finish();
      };
      const timer = setTimeout(() => {
        const phase = this.latest?.status?.phase ?? 'not seen yet';
        finish(new RolloutError('infrastructure', `pod ${this.name} not running after ${timeoutMs / 1000} s (phase ${phase})`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** The pod's failure, waiting up to `ms` for a watch event that may trail a broken exec stream. */
  async failureWithin(ms: number): Promise<PodFailure | undefined> {
    await this.until(() => false, ms).catch(() => undefined);
    return this.failure;
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    this.waiters.clear();
  }
}
