import net from 'node:net';
import { CoreV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { RolloutError, UserError, errorMessage } from '../../util/errors.js';
import { LABEL_OWNER, LABEL_RUN } from '../labels.js';
import { ownerAlive, ownerLabel } from '../../util/process-owner.js';
import type { NetworkMode, ReapReport, RunNetwork, Sandbox, SandboxBackend, SandboxSpec } from '../types.js';
import { apiError, isNotFound } from './api-errors.js';
import { proxyAddress, type KubernetesSection } from './config.js';
import { loadKubeConfig } from './kubeconfig.js';
import { labelValue, runOwnerName } from './names.js';
import { runNetworkPolicy } from './network-policy.js';
import { podRunning } from './pod-failure.js';
import { ROLLOUT_CONTAINER, rolloutPod } from './pod-manifest.js';
import { PodWatch } from './pod-watch.js';
import { MANAGED_BY, ownedBy, runOwnerConfigMap } from './run-owner.js';
import { KubernetesSandbox } from './sandbox.js';
import { waitExecReady } from '../exec-ready.js';
import { ReachabilityPoll } from '../reachability-poll.js';

/** Scheduling and an image pull can take a while on a cluster: longer than a local container start. */
const READY_TIMEOUT_MS = 300_000;
const EXEC_READY_TIMEOUT_MS = 30_000;

/**
 * Runs each rollout in its own Pod through the API server (@kubernetes/client-node): exec and file copy
 * over the exec subresource, readiness and typed failures from watches. Every pod and the run's
 * NetworkPolicy are owned by one ConfigMap per run, so deleting it (removeRun, or by hand) lets the
 * API server remove the whole run.
 */
export class KubernetesBackend implements SandboxBackend {
  readonly name = 'kubernetes' as const;
  readonly maxSandboxes: number;
  readonly kc: KubeConfig;
  private readonly core: CoreV1Api;
  private readonly networking: NetworkingV1Api;
  private readonly owner = ownerLabel();
  private readonly runOwners = new Map<string, Promise<string>>();
  /** A one-pod list of the namespace: what every rollout waiting to retry asks while the API server is away. */
  private readonly reachable = new ReachabilityPoll('kubernetes', () =>
    this.core.listNamespacedPod({ namespace: this.namespace, limit: 1 }).catch((err: unknown) => {
      const { code, message } = apiError(err);
      throw new Error(code ? `${code}: ${message}` : message);
    }),
  );

  constructor(
    private readonly settings: KubernetesSection,
    kc?: KubeConfig,
  ) {
    this.kc = kc ?? loadKubeConfig(settings);
    this.core = this.kc.makeApiClient(CoreV1Api);
    this.networking = this.kc.makeApiClient(NetworkingV1Api);
    this.maxSandboxes = settings.max_pods;
  }

  private get namespace(): string {
    return this.settings.namespace;
  }

  /** Reachable, and allowed to create what a run creates (server-side dry runs: nothing is stored). */
  /**
   * Waits for the API server to answer again (an outage, a control-plane upgrade). Pods keep running without it,
   * but one may have been evicted meanwhile, so a wait still tells the warm pool to start afresh.
   */
  waitUntilReachable(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    return this.reachable.wait(timeoutMs, signal);
  }

  async check(): Promise<void> {
    const server = this.kc.getCurrentCluster()?.server;
    const { host } = proxyAddress(this.settings);
    if (!(await canListen(host))) {
      throw new UserError(
        `kubernetes.proxy.address: ${host} is not an address of this machine, so the recording proxy cannot listen there`,
        'give an address of this machine that the cluster\'s pods can reach (for kind: the gateway of the "kind" Docker network, e.g. 172.18.0.1)',
      );
    }
    const dryRun = 'All';
    const probe = rolloutPod({
      spec: {
        runId: 'check',
        rolloutId: 'check',
        image: 'openforge/check:dry-run',
        resources: { cpus: 0.1, memoryMb: 64, pids: 16 },
        network: { mode: 'none' },
        lifetimeSec: 1,
      },
      settings: this.settings,
      owner: this.owner,
    });
    try {
      await this.core.createNamespacedConfigMap({ namespace: this.namespace, body: runOwnerConfigMap('check', this.namespace, this.owner), dryRun });
      await this.core.createNamespacedPod({ namespace: this.namespace, body: probe, dryRun });
      await this.networking.createNamespacedNetworkPolicy({
        namespace: this.namespace,
        body: runNetworkPolicy({ runId: 'check', namespace: this.namespace, mode: 'none' }),
        dryRun,
      });
    } catch (err) {
      const { code, message } = apiError(err);
      const where = `namespace "${this.namespace}" on ${server} (context ${this.kc.getCurrentContext()})`;
      if (code === 403) {
        throw new UserError(
          `kubernetes.namespace: you may not create objects in ${where}: ${message}`,
          'use a namespace you can write, or get a Role allowing create/get/list/watch/delete on pods, pods/exec, pods/log, configmaps and networkpolicies',
        );
      }
      if (code === 404)
        throw new UserError(`kubernetes.namespace: ${where} does not exist: ${message}`, `create it: kubectl create namespace ${this.namespace}`);
      if (code === undefined)
        throw new UserError(
          `cannot reach the Kubernetes API server ${server} (context ${this.kc.getCurrentContext()}): ${message}`,
          'check kubernetes.kubeconfig / kubernetes.context, and that the cluster is up',
        );
      throw new UserError(`the API server refused a dry run in ${where} (${code}): ${message}`);
    }
  }

  async prepareNetwork(runId: string, mode: NetworkMode): Promise<RunNetwork> {
    const uid = await this.runOwnerUid(runId);
    const proxy = proxyAddress(this.settings);
    try {
      await this.networking.createNamespacedNetworkPolicy({
        namespace: this.namespace,
        body: runNetworkPolicy({ runId, namespace: this.namespace, mode, proxy, ownerReference: ownedBy(runId, uid) }),
      });
    } catch (err) {
      if (apiError(err).code !== 409) throw new RolloutError('infrastructure', `cannot create the run's NetworkPolicy: ${apiError(err).message}`);
    }
    return mode === 'none' ? { mode, name: runOwnerName(runId) } : { mode, name: runOwnerName(runId), proxyHost: proxy.host, proxyPort: proxy.port };
  }

  async releaseNetwork(network: RunNetwork): Promise<void> {
    if (!network.name) return;
    try {
      await this.networking.deleteNamespacedNetworkPolicy({ name: network.name, namespace: this.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    const uid = await this.runOwnerUid(spec.runId);
    const body = rolloutPod({ spec, settings: this.settings, owner: this.owner, ownerReference: ownedBy(spec.runId, uid) });
    const name = body.metadata!.name!;
    try {
      await this.core.createNamespacedPod({ namespace: this.namespace, body });
    } catch (err) {
      const { code, message } = apiError(err);
      throw new RolloutError('infrastructure', `cannot create pod ${name}${code ? ` (${code})` : ''}: ${message}`);
    }
    const watch = new PodWatch(this.kc, this.namespace, name);
    const sandbox = new KubernetesSandbox(this.kc, this.core, { namespace: this.namespace, pod: name, container: ROLLOUT_CONTAINER }, watch);
    try {
      await watch.start();
      await watch.until(podRunning, READY_TIMEOUT_MS);
      await waitPodExecReady(sandbox);
    } catch (err) {
      await sandbox.remove().catch(() => undefined);
      throw err instanceof RolloutError ? err : new RolloutError('infrastructure', `pod ${name} did not start: ${errorMessage(err)}`);
    }
    return sandbox;
  }

  async removeRun(runId: string): Promise<ReapReport> {
    const report: ReapReport = { containers: 0, networks: 0 };
    this.runOwners.delete(runId);
    // Deleting the owner alone would do (the garbage collector follows), but in its own time: deleting the
    // pods directly ends running execs now, and counts them.
    const labelSelector = `${LABEL_RUN}=${labelValue(runId)}`;
    const pods = await this.core.listNamespacedPod({ namespace: this.namespace, labelSelector });
    for (const pod of pods.items) {
      try {
        await this.core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace: this.namespace, gracePeriodSeconds: 0 });
        report.containers++;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const policies = await this.networking.listNamespacedNetworkPolicy({ namespace: this.namespace, labelSelector });
    for (const policy of policies.items) {
      try {
        await this.networking.deleteNamespacedNetworkPolicy({ name: policy.metadata!.name!, namespace: this.namespace });
        report.networks++;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    try {
      await this.core.deleteNamespacedConfigMap({ name: runOwnerName(runId), namespace: this.namespace, propagationPolicy: 'Background' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return report;
  }

  /** Runs whose orchestrator process (on this host) is gone: their owner ConfigMap and everything it owns. */
  async reap(): Promise<ReapReport> {
    const report: ReapReport = { containers: 0, networks: 0 };
    const labelSelector = Object.entries(MANAGED_BY)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const owners = await this.core.listNamespacedConfigMap({ namespace: this.namespace, labelSelector });
    for (const cm of owners.items) {
      const owner = cm.metadata?.annotations?.[LABEL_OWNER];
      const runId = cm.metadata?.annotations?.[LABEL_RUN];
      if (!owner || !runId || ownerAlive(owner)) continue;
      const removed = await this.removeRun(runId);
      report.containers += removed.containers;
      report.networks += removed.networks;
    }
    return report;
  }

  /** The uid of the run's owner ConfigMap, created on first use (or found, when an earlier process made it). */
  private runOwnerUid(runId: string): Promise<string> {
    let uid = this.runOwners.get(runId);
    if (!uid) {
      uid = this.createRunOwner(runId);
      this.runOwners.set(runId, uid);
      uid.catch(() => this.runOwners.delete(runId));
    }
    return uid;
  }

  private async createRunOwner(runId: string): Promise<string> {
    try {
      const created = await this.core.createNamespacedConfigMap({ namespace: this.namespace, body: runOwnerConfigMap(runId, this.namespace, this.owner) });
      return created.metadata!.uid!;
    } catch (err) {
      if (apiError(err).code !== 409)
        throw new RolloutError('infrastructure', `cannot create the run's ConfigMap ${runOwnerName(runId)}: ${apiError(err).message}`);
      const existing = await this.core.readNamespacedConfigMap({ name: runOwnerName(runId), namespace: this.namespace });
      return existing.metadata!.uid!;
    }
  }
}

/** Probes the pod with an exec until it answers; a failed pod fails at once. */
function waitPodExecReady(sandbox: KubernetesSandbox): Promise<void> {
  return waitExecReady(sandbox, {
    timeoutMs: EXEC_READY_TIMEOUT_MS,
    intervalMs: 200,
    what: `pod ${sandbox.id}`,
    fatal: (err) => (err instanceof RolloutError && err.name === 'PodFailure' ? err : undefined),
  });
}

/** Whether this machine can listen on the address (it is one of its own, even on an interface that is down). */
function canListen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}
