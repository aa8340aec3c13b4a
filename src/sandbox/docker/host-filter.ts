import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { UserError } from '../../util/errors.js';

const run = promisify(execFile);

/** Chains of ours in the host's filter table: `OPENFORGE-<bridge>`. */
const CHAIN_PREFIX = 'OPENFORGE-';

/**
 * The Linux bridge a proxy-only network gets, named after the network so that whoever removes the network
 * (its run, or the reaper) finds its filter: at most 15 characters, a kernel limit.
 */
export function bridgeOf(networkName: string): string {
  return `of-${createHash('sha256').update(networkName).digest('hex').slice(0, 12)}`;
}

/**
 * Keeps a proxy-only network's containers off the host's services. The network's gateway address is the
 * host itself, so anything listening on 0.0.0.0 there (an inference server, a dashboard, the rollout
 * service) would answer them, and a rollout could call the model without the proxy. A chain of our own,
 * jumped to from INPUT for packets that arrive on the network's bridge, accepts only the ports the run's
 * proxies listen on and drops the rest. Traffic between the network's containers is the engine's to stop
 * (`enable_icc=false`); the network has no route anywhere else.
 */
export class HostFilter {
  constructor(private readonly iptables = 'iptables') {}

  /** Drops everything from the bridge to the host; `allow` opens a port. Idempotent. */
  async install(bridge: string): Promise<void> {
    await this.remove(bridge);
    const chain = chainOf(bridge);
    await this.ipt(['-N', chain]);
    // answers to connections the host opened (the live view, a test reaching a container) come back through here
    await this.ipt(['-A', chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT']);
    await this.ipt(['-A', chain, '-j', 'DROP']);
    await this.ipt(['-I', 'INPUT', '-i', bridge, '-j', chain]);
  }

  /** The host answers the bridge's containers on this TCP port (a proxy of the run). */
  async allow(bridge: string, port: number): Promise<void> {
    await this.ipt(['-I', chainOf(bridge), '1', '-p', 'tcp', '--dport', String(port), '-j', 'ACCEPT']);
  }

  /** Removes the bridge's filter, if it has one. */
  async remove(bridge: string): Promise<void> {
    const chain = chainOf(bridge);
    while (
      await this.ipt(['-D', 'INPUT', '-i', bridge, '-j', chain]).then(
        () => true,
        () => false,
      )
    );
    await this.ipt(['-F', chain]).catch(() => undefined);
    await this.ipt(['-X', chain]).catch(() => undefined);
  }

  /** Removes the filters of bridges that are gone (a run whose process died between making and removing them). */
  async removeOrphans(liveBridges: ReadonlySet<string>): Promise<number> {
    const { stdout } = await run(this.iptables, ['-w', '5', '-S']).catch(() => ({ stdout: '' }));
    const chains = stdout
      .split('\n')
      .filter((line) => line.startsWith(`-N ${CHAIN_PREFIX}`))
      .map((line) => line.slice(3).trim());
    const orphans = chains.map((chain) => chain.slice(CHAIN_PREFIX.length)).filter((bridge) => !liveBridges.has(bridge));
    for (const bridge of orphans) await this.remove(bridge);
    return orphans.length;
  }

  private async ipt(args: string[]): Promise<void> {
    try {
      await run(this.iptables, ['-w', '5', ...args]);
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw new UserError(`network: proxy-only needs iptables on this host (${this.iptables} was not found)`, HINT);
      const stderr = e.stderr?.trim() ?? e.message;
      if (/permission denied|not permitted|you must be root/i.test(stderr))
        throw new UserError(`network: proxy-only needs to set a packet filter: ${stderr}`, HINT);
      throw new Error(`iptables ${args.join(' ')} failed: ${stderr}`, { cause: err });
    }
  }
}

const HINT =
  "proxy-only keeps rollouts off the host's services with an iptables rule per run: run openforge as root (or with CAP_NET_ADMIN), or use network: none for a harness that needs no model";

function chainOf(bridge: string): string {
  return `${CHAIN_PREFIX}${bridge}`;
}
