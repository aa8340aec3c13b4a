import type Docker from 'dockerode';
import { LABEL_OWNER, LABEL_RUN } from '../labels.js';
import type { SandboxSpec } from '../types.js';
import { RolloutError, errorMessage } from '../../util/errors.js';
import { imageNotFound, isImageMissing, statusOf } from './errors.js';

/** Marks a network holder among a run's containers. */
export const LABEL_NETWORK_HOLDER = 'openforge.network-holder';

/** A holder's own process: it only keeps the namespace open, and ends by itself a day later if nobody removes it. */
const HOLDER_ENTRYPOINT = ['sleep'];
const HOLDER_COMMAND = ['86400'];
/** Limits of a holder container (see `make`). */
const HOLDER_MEMORY_BYTES = 64 * 1024 * 1024;
const HOLDER_PIDS = 32;
/** Starts of a holder the engine failed on its side, before a borrower is told (see `make`). */
const HOLDER_START_ATTEMPTS = 2;

/** One network namespace on a run's network, lent to one rollout container at a time. */
export interface NetworkHolder {
  id: string;
  network: string;
  /** Its address on the network: the address of whichever container borrows it. */
  address: string | undefined;
  /** Holders made before the engine last went away are not lent again. */
  generation: number;
}

/**
 * Network namespaces on a run's proxy-only network, reused by the run's rollout containers one after
 * another (`NetworkMode: container:<holder>`).
 *
 * Joining a user-defined network costs the engine ~0.6 s of CPU per container here: a veth pair, its
 * embedded DNS resolver and the re-executions of dockerd that set them up. A holder pays it once, and
 * each container that borrows it starts as fast as one without a network. A holder is lent to one
 * container at a time and taken back only once that container is removed, with every process in it, so
 * two rollouts never share a namespace while both live. What a namespace keeps between two borrowers is
 * what a rollout cannot change (no NET_ADMIN): its address, routes and resolver, plus sockets the kernel
 * still holds in TIME_WAIT.
 */
export class NetworkHolders {
  private readonly free = new Map<string, NetworkHolder[]>();
  private readonly lent = new Set<NetworkHolder>();
  private generation = 0;

  constructor(
    private readonly docker: Docker,
    private readonly owner: string,
  ) {}

  /** A free holder on `network`, or a new one made from the spec's image (any image with `sleep` will do). */
  async borrow(network: string, spec: SandboxSpec, dnsOptions: string[]): Promise<NetworkHolder> {
    const free = this.free.get(network) ?? [];
    let holder = free.pop();
    while (holder && holder.generation !== this.generation) {
      void this.discard(holder);
      holder = free.pop();
    }
    holder ??= await this.make(network, spec, dnsOptions);
    this.lent.add(holder);
    return holder;
  }

  /** Takes a holder back once the container that borrowed it is gone; `broken` removes it instead. */
  giveBack(holder: NetworkHolder, broken = false): void {
    if (!this.lent.delete(holder)) return;
    if (broken || holder.generation !== this.generation) {
      void this.discard(holder);
      return;
    }
    const free = this.free.get(holder.network) ?? [];
    free.push(holder);
    this.free.set(holder.network, free);
  }

  /** Whether the holder's container still runs (false when gone or the engine does not answer). */
  async isRunning(holder: NetworkHolder): Promise<boolean> {
    try {
      return (await this.docker.getContainer(holder.id).inspect()).State?.Running === true;
    } catch {
      return false;
    }
  }

  /** After the engine went away (a restart stops every container): no holder made before is lent again. */
  invalidate(): void {
    this.generation++;
    const stale = [...this.free.values()].flat();
    this.free.clear();
    for (const holder of stale) void this.discard(holder);
  }

  /** Removes the free holders on a network (before the network itself); lent ones go as they come back. */
  async removeOn(network: string): Promise<void> {
    const free = this.free.get(network) ?? [];
    this.free.delete(network);
    await Promise.all(free.map((h) => this.discard(h)));
  }

  /**
   * A new holder, started. The engine sometimes fails a start it would carry out a moment later (runc's init
   * dying as it starts under load: "cannot start a stopped process"), so a start the engine failed on its
   * side (HTTP 500) is tried once more with a fresh container before the borrower is told.
   */
  private async make(network: string, spec: SandboxSpec, dnsOptions: string[]): Promise<NetworkHolder> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.makeOnce(network, spec, dnsOptions);
      } catch (err) {
        if (attempt < HOLDER_START_ATTEMPTS && statusOf(err) === 500) continue;
        if (isImageMissing(err)) throw imageNotFound(spec.image);
        throw new RolloutError('infrastructure', `cannot start a network holder (\`sleep\` from ${spec.image}) on network ${network}: ${errorMessage(err)}`);
      }
    }
  }

  private async makeOnce(network: string, spec: SandboxSpec, dnsOptions: string[]): Promise<NetworkHolder> {
    const container = await this.docker.createContainer({
      // the entrypoint too: a task image's own would otherwise run with `sleep` as its arguments
      Image: spec.image,
      Entrypoint: HOLDER_ENTRYPOINT,
      Cmd: HOLDER_COMMAND,
      Labels: { [LABEL_RUN]: spec.runId, [LABEL_OWNER]: this.owner, [LABEL_NETWORK_HOLDER]: network },
      HostConfig: {
        NetworkMode: network,
        DnsOptions: dnsOptions,
        // It runs `sleep` alone, but starting it runs runc's init in its cgroups: a Go program with threads
        // of its own, which (Debian's runc) also copies its ~9 MB binary into memory there. At 16 MB and 4
        // pids an engine under load once failed a start ("cannot start a stopped process": init died).
        Memory: HOLDER_MEMORY_BYTES,
        MemorySwap: HOLDER_MEMORY_BYTES,
        PidsLimit: HOLDER_PIDS,
        NanoCpus: 100_000_000,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
      },
    });
    try {
      await container.start();
      const info = await container.inspect();
      const address = Object.values(info.NetworkSettings?.Networks ?? {})
        .map((n) => n.IPAddress)
        .find((ip) => !!ip);
      return { id: container.id, network, address, generation: this.generation };
    } catch (err) {
      await container.remove({ force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** Never rejects: a holder the engine could not remove now (it is away) carries the run's labels, so the run's removal or the reaper gets it. */
  private async discard(holder: NetworkHolder): Promise<void> {
    await this.docker
      .getContainer(holder.id)
      .remove({ force: true })
      .catch(() => undefined);
  }
}
