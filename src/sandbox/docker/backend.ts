import Docker from 'dockerode';
import { withDeadline } from '../../util/deadline.js';
import { RolloutError, UserError, errorMessage } from '../../util/errors.js';
import { LABEL_OWNER, LABEL_ROLLOUT, LABEL_RUN } from '../labels.js';
import { ownerAlive, ownerLabel } from '../../util/process-owner.js';
import type { NetworkMode, NetworkPlan, ReapReport, RunNetwork, Sandbox, SandboxBackend, SandboxSpec } from '../types.js';
import { DockerSandbox } from './container.js';
import { imageNotFound, isEngineUnreachable, isImageMissing, isGone, isNotRunning, statusOf } from './errors.js';
import { waitExecReady } from '../exec-ready.js';
import { ReachabilityPoll } from '../reachability-poll.js';
import { HostFilter, bridgeOf } from './host-filter.js';
import { NetworkHolders, type NetworkHolder } from './network-holders.js';
import { startServices } from './services.js';

/**
 * Capabilities a rollout keeps: what a root user needs to work on its own files. Everything else
 * (NET_RAW, MKNOD, SYS_CHROOT, SETPCAP, …) is dropped, and no-new-privileges stops setuid escalation.
 */
const KEPT_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID'];
const READY_TIMEOUT_MS = 30_000;
/**
 * An internal network resolves no outside name, but each lookup takes 20 s to fail with the default resolver
 * options (5 s × 2 attempts × A and AAAA): a harness that looks a name up at start (opencode's npm registry
 * checks) would hang instead of failing fast.
 */
const PROXY_ONLY_DNS_OPTIONS = ['timeout:1', 'attempts:1'];
/** The network that gives a rollout public egress: Docker's default bridge, as `network: public` uses. */
const PUBLIC_NETWORK = 'bridge';
/** Network holders are used when a run expects at least this many sandboxes per sandbox alive at once. */
const HOLDER_BORROWERS_WORTH_IT = 2;

export class DockerBackend implements SandboxBackend {
  readonly name = 'docker' as const;
  readonly runsServices = true;
  readonly grantsInternet = true;
  readonly docker: Docker;
  private readonly owner = ownerLabel();
  private readonly reachable = new ReachabilityPoll('docker', () => this.docker.ping());
  private readonly holders: NetworkHolders;
  private readonly hostFilter = new HostFilter();

  constructor(docker?: Docker) {
    this.docker = docker ?? new Docker();
    this.holders = new NetworkHolders(this.docker, this.owner);
  }

  async check(): Promise<void> {
    try {
      await withDeadline(this.docker.ping(), 5000, () => new Error('no answer within 5 s'));
    } catch (err) {
      throw new UserError(
        `cannot reach the Docker engine (${process.env.DOCKER_HOST ?? '/var/run/docker.sock'}): ${errorMessage(err)}`,
        'start it (`dockerd > /var/log/dockerd.log 2>&1 &`, or `systemctl start docker`), or run `npm run setup`, which installs and starts it',
      );
    }
  }

  /** overlay2 holds a size only on xfs mounted with pquota (devicemapper, btrfs, zfs each their own way): the engine says, when asked. */
  async storageLimitProblem(): Promise<string | undefined> {
    const info = (await this.docker.info()) as { Driver?: string; DriverStatus?: [string, string][] };
    const backing = info.DriverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1];
    // a container created (never started) from any local image: the engine checks the option there
    const [image] = await this.docker.listImages();
    if (!image) return undefined;
    try {
      const probe = await this.docker.createContainer({
        Image: image.Id,
        Cmd: ['true'],
        Labels: { [LABEL_OWNER]: this.owner },
        HostConfig: { StorageOpt: { size: '64M' } },
      });
      await probe.remove({ force: true });
      return undefined;
    } catch (err) {
      const message = errorMessage(err);
      return `the Docker engine's storage driver (${info.Driver ?? 'unknown'}${backing ? ` on ${backing}` : ''}) cannot limit a container's disk: ${message.replace(/^\(HTTP code \d+\)[^-]*- /, '').trim()}`;
    }
  }

  async checkRuntime(runtime: string): Promise<void> {
    const info = (await this.docker.info()) as { Runtimes?: Record<string, unknown> };
    const known = Object.keys(info.Runtimes ?? {});
    if (!known.includes(runtime)) {
      throw new UserError(
        `sandbox.runtime: "${runtime}" is not registered with the Docker engine (it has ${known.join(', ') || 'none'})`,
        runtime === 'runsc'
          ? 'run `npm run setup`, which installs gVisor (Debian\'s runsc) and registers it, or add it to "runtimes" in /etc/docker/daemon.json and reload dockerd'
          : `add it to "runtimes" in /etc/docker/daemon.json and reload dockerd (kill -HUP), or leave sandbox.runtime out`,
      );
    }
  }

  async waitUntilReachable(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const waited = await this.reachable.wait(timeoutMs, signal);
    // an engine restart stopped every container, the network holders with them
    if (waited) this.holders.invalidate();
    return waited;
  }

  async prepareNetwork(runId: string, mode: NetworkMode, plan?: NetworkPlan): Promise<RunNetwork> {
    if (mode === 'none') return { mode };
    if (mode === 'public') {
      const bridge = await this.docker.getNetwork('bridge').inspect();
      return { mode, name: 'bridge', proxyHost: bridge.IPAM?.Config?.[0]?.Gateway };
    }
    // proxy-only: an internal network has no route out, and no traffic between its containers; the host's
    // address on it is where the proxy listens, and the host answers there only on the proxy's ports.
    const name = `openforge-${runId}`;
    const bridge = bridgeOf(name);
    let network: Docker.Network;
    try {
      network = await this.docker.createNetwork({
        Name: name,
        Internal: true,
        CheckDuplicate: true,
        Options: { 'com.docker.network.bridge.name': bridge, 'com.docker.network.bridge.enable_icc': 'false' },
        Labels: { [LABEL_RUN]: runId, [LABEL_OWNER]: this.owner },
      });
    } catch (err) {
      if (statusOf(err) !== 409) throw err;
      network = this.docker.getNetwork(name); // left by an earlier process of the same run
    }
    const info = await network.inspect();
    const gateway = info.IPAM?.Config?.[0]?.Gateway as string | undefined;
    if (!gateway) throw new RolloutError('infrastructure', `Docker network ${name} has no gateway address`);
    await this.hostFilter.install(bridge);
    // A holder costs about a container's start; it pays off from its second borrower on (docs/performance.md).
    const lendNamespaces = plan === undefined || plan.sandboxes >= HOLDER_BORROWERS_WORTH_IT * plan.atOnce;
    return { mode, name, proxyHost: gateway, lendNamespaces };
  }

  async openHostPort(network: RunNetwork, port: number): Promise<void> {
    if (network.mode === 'proxy-only' && network.name) await this.hostFilter.allow(bridgeOf(network.name), port);
  }

  async releaseNetwork(network: RunNetwork): Promise<void> {
    if (network.mode !== 'proxy-only' || !network.name) return;
    await this.holders.removeOn(network.name);
    try {
      await this.docker.getNetwork(network.name).remove();
    } catch (err) {
      if (!isGone(err)) throw err;
    }
    await this.hostFilter.remove(bridgeOf(network.name));
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    const { mode, name, lendNamespaces } = spec.network;
    // services join the rollout container's own namespace, and its own /etc/hosts names them: no holder's
    // (and a rollout given the internet joins a second network itself)
    if (mode !== 'proxy-only' || !name || !lendNamespaces || spec.services?.length || spec.internet) return this.createContainer(spec);
    for (let attempt = 1; ; attempt++) {
      const holder = await this.holders.borrow(name, spec, PROXY_ONLY_DNS_OPTIONS);
      try {
        return await this.createContainer(spec, holder);
      } catch (err) {
        // a holder that stopped (killed, or the engine restarted) is replaced once, as a fresh one would have been made
        const holderGone = !(await this.holders.isRunning(holder));
        // the failed container was removed with its processes: a holder still running is lent again
        this.holders.giveBack(holder, holderGone);
        if (!holderGone || attempt > 1) throw err;
      }
    }
  }

  private async createContainer(spec: SandboxSpec, holder?: NetworkHolder): Promise<Sandbox> {
    const memory = spec.resources.memoryMb * 1024 * 1024;
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer({
        Image: spec.image,
        // The container's only long-lived process ends by itself: its finite lifetime.
        Cmd: ['sleep', String(Math.ceil(spec.lifetimeSec))],
        WorkingDir: spec.workdir,
        Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
        Labels: { ...spec.labels, [LABEL_RUN]: spec.runId, [LABEL_ROLLOUT]: spec.rolloutId, [LABEL_OWNER]: this.owner },
        HostConfig: {
          Init: true,
          AutoRemove: true,
          NanoCpus: Math.round(spec.resources.cpus * 1e9),
          Memory: memory,
          MemorySwap: memory,
          PidsLimit: spec.resources.pids,
          CapDrop: ['ALL'],
          CapAdd: KEPT_CAPABILITIES,
          SecurityOpt: ['no-new-privileges'],
          // on a proxy-only network, the namespace of a holder (see NetworkHolders), which carries the resolver options
          NetworkMode: holder ? `container:${holder.id}` : spec.network.mode === 'none' ? 'none' : spec.network.name,
          ...(!holder && spec.network.mode === 'proxy-only' ? { DnsOptions: PROXY_ONLY_DNS_OPTIONS } : {}),
          ...(spec.services?.length ? { ExtraHosts: spec.services.map((svc) => `${svc.name}:127.0.0.1`) } : {}),
          ShmSize: 64 * 1024 * 1024,
          ...(spec.runtime ? { Runtime: spec.runtime } : {}),
          ...(spec.resources.storageMb ? { StorageOpt: { size: `${spec.resources.storageMb}M` } } : {}),
          Mounts: spec.mounts?.map((m) => ({ Type: 'volume' as const, Source: m.volume, Target: m.target, ReadOnly: m.readOnly })),
        },
      });
    } catch (err) {
      if (isImageMissing(err)) throw imageNotFound(spec.image);
      throw new RolloutError('infrastructure', `cannot create the container: ${errorMessage(err)}`);
    }
    const publicEgress = spec.network.mode === 'proxy-only' ? PUBLIC_NETWORK : undefined;
    const starting = new DockerSandbox(this.docker, container, undefined, undefined, spec.internet === 'verifier' ? publicEgress : undefined);
    try {
      // the run's internal network keeps the proxy's address; Docker's bridge adds the route out
      if (spec.internet === 'agent' && publicEgress) await this.docker.getNetwork(publicEgress).connect({ Container: container.id });
      await container.start();
      await waitReady(starting);
    } catch (err) {
      await starting.remove().catch(() => undefined);
      throw err instanceof RolloutError ? err : new RolloutError('infrastructure', `container did not start: ${errorMessage(err)}`);
    }
    if (spec.services?.length) {
      try {
        const services = await startServices(this.docker, spec, container.id, this.owner);
        const byName = new Map(spec.services.map((svc, i) => [svc.name, services[i]!]));
        return new DockerSandbox(this.docker, container, undefined, byName, spec.internet === 'verifier' ? publicEgress : undefined);
      } catch (err) {
        await starting.remove().catch(() => undefined);
        throw err;
      }
    }
    // the holder goes back when the sandbox is removed; a start that failed is `create`'s to handle
    return holder ? new DockerSandbox(this.docker, container, { address: holder.address, giveBack: () => this.holders.giveBack(holder) }) : starting;
  }

  async removeRun(runId: string): Promise<ReapReport> {
    return this.removeWhere((labels) => labels[LABEL_RUN] === runId, `${LABEL_RUN}=${runId}`);
  }

  async reap(): Promise<ReapReport> {
    return this.removeWhere((labels) => {
      const owner = labels[LABEL_OWNER];
      return owner !== undefined && !ownerAlive(owner);
    }, LABEL_OWNER);
  }

  private async removeWhere(match: (labels: Record<string, string>) => boolean, labelFilter: string): Promise<ReapReport> {
    const report: ReapReport = { containers: 0, networks: 0 };
    const containers = await this.docker.listContainers({ all: true, filters: { label: [labelFilter] } });
    await Promise.all(
      containers
        .filter((c) => match(c.Labels ?? {}))
        .map(async (c) => {
          try {
            await this.docker.getContainer(c.Id).remove({ force: true, v: true });
            report.containers++;
          } catch (err) {
            if (!isGone(err)) throw err;
          }
        }),
    );
    const networks = await this.docker.listNetworks({ filters: { label: [labelFilter] } });
    for (const n of networks.filter((n) => match(n.Labels ?? {}))) {
      try {
        await this.docker.getNetwork(n.Id).remove();
        report.networks++;
      } catch (err) {
        if (!isGone(err)) throw err;
      }
    }
    // the filters of networks now gone, and of any a dead process left without its network
    const live = await this.docker.listNetworks({ filters: { label: [LABEL_RUN] } });
    await this.hostFilter.removeOrphans(new Set(live.map((n) => bridgeOf(n.Name))));
    return report;
  }
}

/** Probes the container with an exec until it answers; a stopped container or a gone engine fails at once. */
function waitReady(sandbox: DockerSandbox): Promise<void> {
  return waitExecReady(sandbox, {
    timeoutMs: READY_TIMEOUT_MS,
    intervalMs: 50,
    what: 'container',
    fatal: (err) =>
      isNotRunning(err) || isEngineUnreachable(err) ? new RolloutError('infrastructure', `container did not start: ${errorMessage(err)}`) : undefined,
  });
}
