import { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricsSnapshot } from '../proxy/control/proxy-metrics.js';
import type { WarmPoolStats } from '../sandbox/warm-pool.js';
import type { RolloutState } from './types.js';

const STATES: RolloutState[] = ['queued', 'running', 'finished', 'error'];
/** Rewards are usually in [0, 1] (REFERENCE §5's graders); others land in the first or last bucket. */
const REWARD_BUCKETS = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1];
/** A rollout lasts from seconds (a scripted task) to its run.yaml timeout (tens of minutes). */
const ROLLOUT_SECONDS_BUCKETS = [1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 3600];

/** What the service's gauges read when scraped. */
export interface ServiceState {
  rolloutsIn(state: RolloutState): number;
  warmPool(): WarmPoolStats & { idle: number };
}

/**
 * The rollout service's Prometheus metrics: rollouts by state, how they ended, their rewards and
 * durations, the warm pool. `GET /metrics` serves them together with its proxies' (one per model
 * config), added up into one exposition (`exposition`).
 */
export class ServiceMetrics {
  private readonly registry = new Registry();
  private readonly submitted: Counter;
  private readonly stale: Counter;
  private readonly ended: Counter<'outcome'>;
  private readonly reward: Histogram;
  private readonly duration: Histogram<'outcome'>;

  constructor(state: ServiceState) {
    const registers = [this.registry];
    this.submitted = new Counter({ name: 'openforge_service_rollouts_submitted_total', help: 'Rollouts submitted (POST /v1/rollouts: tasks × n)', registers });
    this.stale = new Counter({
      name: 'openforge_service_rollouts_stale_total',
      help: 'Rollouts whose first model call was more than max_staleness weight updates old when they ended (kept, out of samples)',
      registers,
    });
    this.ended = new Counter({
      name: 'openforge_service_rollouts_ended_total',
      help: 'Rollouts ended, by outcome: finished (graded), or the error type that ended them (infrastructure, timeout, agent, …)',
      labelNames: ['outcome'],
      registers,
    });
    this.reward = new Histogram({ name: 'openforge_service_reward', help: 'Rewards of graded rollouts', buckets: REWARD_BUCKETS, registers });
    this.duration = new Histogram({
      name: 'openforge_service_rollout_duration_seconds',
      help: 'Rollouts from the start of their first attempt to their end, by outcome',
      labelNames: ['outcome'],
      buckets: ROLLOUT_SECONDS_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'openforge_service_rollouts',
      help: 'Rollouts the service holds, by state (queued, running, finished, error)',
      labelNames: ['state'],
      registers,
      collect() {
        for (const s of STATES) this.labels(s).set(state.rolloutsIn(s));
      },
    });
    new Gauge({
      name: 'openforge_service_warm_sandboxes',
      help: 'Sandboxes started ahead for queued rollouts and not yet taken',
      registers,
      collect() {
        this.set(state.warmPool().idle);
      },
    });
    new Counter({
      name: 'openforge_service_sandbox_starts_total',
      help: "Sandboxes rollouts got, by how: warm (started ahead, while the rollout queued) or cold (started on the rollout's path)",
      labelNames: ['how'],
      registers,
      collect() {
        const { warm, cold } = state.warmPool();
        this.reset();
        this.labels('warm').inc(warm);
        this.labels('cold').inc(cold);
      },
    });
  }

  rolloutsSubmitted(count: number): void {
    this.submitted.inc(count);
  }

  /** A rollout ended: `errorType` null when it was graded. */
  /** A rollout ended stale (past its `max_staleness`). */
  rolloutStale(): void {
    this.stale.inc();
  }

  rolloutEnded(outcome: { reward: number | null; errorType: string | null }, seconds: number): void {
    const label = outcome.reward !== null ? 'finished' : (outcome.errorType ?? 'error');
    this.ended.labels(label).inc();
    this.duration.labels(label).observe(seconds);
    if (outcome.reward !== null) this.reward.observe(outcome.reward);
  }

  /** The service's metrics and its proxies', their series added up by each metric's aggregator. */
  async exposition(proxies: MetricsSnapshot[]): Promise<{ contentType: string; text: string }> {
    const all = AggregatorRegistry.aggregate([await this.registry.getMetricsAsJSON(), ...proxies]);
    return { contentType: all.contentType, text: await all.metrics() };
  }
}
