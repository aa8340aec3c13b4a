import { randomBytes } from 'node:crypto';
import type { NetworkMode, NetworkPlan, ReapReport, RunNetwork, Sandbox, SandboxBackend, SandboxSpec } from './types.js';

export interface WarmPoolOptions {
  /** A warm sandbox nobody took within this many seconds is removed (and lives this much longer than its spec says). */
  maxIdleSec: number;
}

export interface WarmPoolStats {
  /** Sandboxes handed over started (or already starting). */
  warm: number;
  /** Sandboxes started on the caller's path: nothing warm fitted, or warming it had failed. */
  cold: number;
  /** Warm sandboxes removed unused: idle too long, or left at close. */
  unused: number;
}

interface WarmEntry {
  sandbox: Promise<Sandbox>;
  /** Starts it now even if starts a caller waits for are in flight: a caller waits for this one. */
  startNow: () => void;
  expiry: NodeJS.Timeout;
}

/**
 * A warm pool over any backend: the orchestrator names the sandboxes it will ask for next (`warm`), the pool
 * starts them (once no start a caller waits for is in flight), and `create` hands over a started one with the
 * same spec, so the start is off the rollout's critical path. A spec less its rollout id decides which warm
 * sandbox fits; a warm sandbox keeps the pool's own id as its rollout label. Each `warm` stands for one later
 * `create`: the pool starts no more than it is told.
 */
export class WarmPool implements SandboxBackend {
  readonly stats: WarmPoolStats = { warm: 0, cold: 0, unused: 0 };
  private readonly entries = new Map<string, WarmEntry[]>();
  private readonly prefix = `warm-${randomBytes(3).toString('hex')}`;
  private count = 0;
  private closed = false;
  /** Starts a caller is waiting for: warm-ups begin only once these are done, so they never slow one down. */
  private readonly coldStarts = new Set<Promise<unknown>>();

  constructor(
    private readonly inner: SandboxBackend,
    private readonly options: WarmPoolOptions = { maxIdleSec: 300 },
  ) {}

  get name(): SandboxBackend['name'] {
    return this.inner.name;
  }

  get maxSandboxes(): number | undefined {
    return this.inner.maxSandboxes;
  }

  /** Warm sandboxes started or starting that nobody has taken yet. */
  get idle(): number {
    let n = 0;
    for (const list of this.entries.values()) n += list.length;
    return n;
  }

  /** Starts a sandbox for a later `create(spec)` with the same spec (its rollout id aside). */
  warm(spec: SandboxSpec): void {
    if (this.closed) return;
    const key = identityOf(spec);
    const warmSpec = { ...spec, rolloutId: `${this.prefix}-${++this.count}`, lifetimeSec: spec.lifetimeSec + this.options.maxIdleSec };
    let startNow!: () => void;
    const taken = new Promise<void>((resolve) => (startNow = resolve));
    const sandbox = Promise.race([this.afterColdStarts(), taken]).then(() => {
      if (this.closed) throw new Error('the warm pool was closed before this sandbox started');
      return this.inner.create(warmSpec);
    });
    sandbox.catch(() => undefined); // a failed warm-up surfaces as a cold start in create()
    const entry: WarmEntry = {
      sandbox,
      startNow,
      expiry: setTimeout(() => {
        if (this.remove(key, entry)) void this.discard(entry);
      }, this.options.maxIdleSec * 1000).unref(),
    };
    const list = this.entries.get(key) ?? [];
    list.push(entry);
    this.entries.set(key, list);
  }

  /** A warm sandbox with this spec when one was started (waiting for it if it is still starting), else a new one. */
  async create(spec: SandboxSpec): Promise<Sandbox> {
    const key = identityOf(spec);
    const entry = this.entries.get(key)?.[0];
    if (entry && this.remove(key, entry)) {
      clearTimeout(entry.expiry);
      entry.startNow();
      try {
        const sandbox = await entry.sandbox;
        this.stats.warm++;
        return sandbox;
      } catch {
        // warming failed (the engine was busy, the image missing, …): start one now, which reports its own error
      }
    }
    this.stats.cold++;
    const start = this.inner.create(spec);
    const settled = start.then(
      () => undefined,
      () => undefined,
    );
    this.coldStarts.add(settled);
    void settled.then(() => this.coldStarts.delete(settled));
    return start;
  }

  /** Removes every warm sandbox not taken; later `warm` calls are ignored. */
  async close(): Promise<void> {
    this.closed = true;
    await this.dropAll();
  }

  /**
   * Waits for the backend as `inner` does. After a wait (an engine restart stops every container) the warm
   * sandboxes are dropped: the rollouts they stood for start their own.
   */
  async waitUntilReachable(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const waited = (await this.inner.waitUntilReachable?.(timeoutMs, signal)) ?? false;
    if (waited) await this.dropAll();
    return waited;
  }

  private async dropAll(): Promise<void> {
    const all = [...this.entries.values()].flat();
    this.entries.clear();
    await Promise.all(
      all.map((e) => {
        clearTimeout(e.expiry);
        return this.discard(e);
      }),
    );
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  async checkRuntime(runtime: string): Promise<void> {
    await this.inner.checkRuntime?.(runtime);
  }

  async storageLimitProblem(): Promise<string | undefined> {
    return this.inner.storageLimitProblem?.();
  }

  prepareNetwork(runId: string, mode: NetworkMode, plan?: NetworkPlan): Promise<RunNetwork> {
    return this.inner.prepareNetwork(runId, mode, plan);
  }

  async openHostPort(network: RunNetwork, port: number): Promise<void> {
    await this.inner.openHostPort?.(network, port);
  }

  releaseNetwork(network: RunNetwork): Promise<void> {
    return this.inner.releaseNetwork(network);
  }

  removeRun(runId: string): Promise<ReapReport> {
    return this.inner.removeRun(runId);
  }

  reap(): Promise<ReapReport> {
    return this.inner.reap();
  }

  private async afterColdStarts(): Promise<void> {
    while (this.coldStarts.size > 0) await Promise.all(this.coldStarts);
  }

  private remove(key: string, entry: WarmEntry): boolean {
    const list = this.entries.get(key);
    const at = list?.indexOf(entry) ?? -1;
    if (at < 0) return false;
    list!.splice(at, 1);
    if (list!.length === 0) this.entries.delete(key);
    return true;
  }

  private async discard(entry: WarmEntry): Promise<void> {
    const sandbox = await entry.sandbox.catch(() => undefined);
    if (!sandbox) return;
    this.stats.unused++;
    await sandbox.remove().catch(() => undefined);
  }
}

/** What makes two sandboxes interchangeable: the whole spec but the rollout it is for. */
function identityOf(spec: SandboxSpec): string {
  const { rolloutId: _rolloutId, ...identity } = spec;
  return JSON.stringify(identity);
}
