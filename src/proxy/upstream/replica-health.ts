import type { EjectionPolicy } from '../types.js';

export const DEFAULT_EJECTION: EjectionPolicy = { failuresToEject: 3, baseEjectionMs: 5_000, maxEjectionMs: 120_000 };

/** Told when a replica is taken out of routing and when it answers again. */
export interface ReplicaHealthEvents {
  ejected(replica: number, forMs: number, failures: number): void;
  restored(replica: number): void;
}

interface Health {
  consecutiveFailures: number;
  /** Epoch ms until which calls avoid the replica; 0 when it is in routing. */
  ejectedUntil: number;
}

/** A replica's health as reported (`/control/status`, `/metrics`). */
export interface ReplicaState extends Health {
  inRouting: boolean;
}

interface Replica extends Health {
  /** Ejections since it last answered: each one lasts twice the one before. */
  ejections: number;
}

/**
 * Passive health of an upstream's replicas, as a load balancer's outlier detection keeps it: a
 * replica that fails `failuresToEject` times in a row (connection errors, timeouts, 5xx) is left out
 * of routing for a while, so the rollouts that stick to it stop paying a connect timeout or a round
 * of retries on every call; their calls go to the next replica in ring order, the same one each time
 * (its prefix cache). When the while is over the replica is tried again: one more failure ejects it
 * for twice as long (up to `maxEjectionMs`), an answer puts it back. The last replica in routing is
 * never ejected: with none to move to, calls keep trying it.
 */
export class ReplicaHealth {
  private readonly replicas: Replica[];

  constructor(
    count: number,
    private readonly policy: EjectionPolicy,
    private readonly events: ReplicaHealthEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.replicas = Array.from({ length: count }, () => ({ consecutiveFailures: 0, ejectedUntil: 0, ejections: 0 }));
  }

  /** The first replica in routing from `start` on, in ring order. */
  pick(start: number): number {
    const count = this.replicas.length;
    const now = this.now();
    for (let step = 0; step < count; step++) {
      const index = (start + step) % count;
      if ((this.replicas[index] as Replica).ejectedUntil <= now) return index;
    }
    return start % count;
  }

  /** The replica answered (any status below 500): it is in routing again. */
  answered(index: number): void {
    const replica = this.replicas[index] as Replica;
    const wasOut = replica.ejections > 0;
    replica.consecutiveFailures = 0;
    replica.ejections = 0;
    replica.ejectedUntil = 0;
    if (wasOut) this.events.restored(index);
  }

  failed(index: number): void {
    const replica = this.replicas[index] as Replica;
    replica.consecutiveFailures++;
    const now = this.now();
    if (replica.consecutiveFailures < this.policy.failuresToEject || replica.ejectedUntil > now) return;
    if (!this.replicas.some((other, i) => i !== index && other.ejectedUntil <= now)) return;
    const forMs = Math.min(this.policy.baseEjectionMs * 2 ** replica.ejections, this.policy.maxEjectionMs);
    replica.ejections++;
    replica.ejectedUntil = now + forMs;
    this.events.ejected(index, forMs, replica.consecutiveFailures);
  }

  state(index: number): ReplicaState {
    const { consecutiveFailures, ejectedUntil } = this.replicas[index] as Replica;
    const inRouting = ejectedUntil <= this.now();
    return { consecutiveFailures, inRouting, ejectedUntil: inRouting ? 0 : ejectedUntil };
  }
}
