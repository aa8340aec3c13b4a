import { Counter, Gauge, Histogram, Registry, type Aggregator } from 'prom-client';
import type { RecordedCall } from '../../records/call.js';
import type { ReplicaState } from '../upstream/replica-health.js';

/** Seconds; a model call lasts from milliseconds (count_tokens, a cached prompt) to minutes (a long generation). */
const CALL_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** A registry's metrics with their series, as `AggregatorRegistry.aggregate` adds them up. */
export type MetricsSnapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** What the proxy's gauges read when scraped. */
export interface ProxyState {
  inFlight(): number;
  paused(): boolean;
  /** Model calls held for the resume (pause mode `hold`). */
  held(): number;
  pendingRecords(): number;
  /** The serving thread's event-loop utilization over the last window, null before the first. */
  servingThreadBusy(): number | null;
  /** From the sink, when it counts them (see `CallSink.policyCallsWithoutTokenIds`). */
  policyCallsWithoutTokenIds(): number | undefined;
  upstreams(): ({ url: string } & ReplicaState)[];
}

/**
 * The proxy's Prometheus metrics (`GET /metrics`), in a registry of its own so that several proxies
 * in one process keep theirs apart. Per call, a counter and two histogram observations from the
 * finished record; everything else is read when scraped. Labels stay few and bounded: protocol, call
 * label, HTTP status, stream or not, and the upstream's URL for retries; never a rollout.
 * Each metric names how the series of several proxies in one process add up (prom-client's
 * `aggregator`, see `snapshot`): counts sum, what describes the process is taken once.
 */
export class ProxyMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'protocol' | 'label' | 'status'>;
  private readonly duration: Histogram<'protocol' | 'label' | 'stream'>;
  private readonly firstByte: Histogram<'protocol' | 'label' | 'stream'>;
  private readonly firstByteByUpstream: Histogram<'upstream' | 'stream'>;
  private readonly pausedRefusals: Counter<'protocol'>;
  private readonly retries: Counter<'upstream' | 'reason'>;
  private readonly recordFailures: Counter;
  private readonly ejections: Counter<'upstream'>;

  constructor(state: ProxyState) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: 'openforge_proxy_calls_total',
      help: 'Model calls answered and recorded, by protocol, call label (policy, helper, count_tokens) and HTTP status (499: the client hung up)',
      labelNames: ['protocol', 'label', 'status'],
      registers,
    });
    const callHistogram = (name: string, help: string) =>
      new Histogram({ name, help, labelNames: ['protocol', 'label', 'stream'], buckets: CALL_SECONDS_BUCKETS, registers });
    this.duration = callHistogram('openforge_proxy_call_duration_seconds', "Model calls from request to the answer's last byte, as recorded");
    this.firstByte = callHistogram('openforge_proxy_time_to_first_byte_seconds', "Model calls from request to the first byte of the answer's body");
    this.firstByteByUpstream = new Histogram({
      name: 'openforge_proxy_upstream_time_to_first_byte_seconds',
      help: "Model calls by the upstream replica that answered them (or `scripted`, `turn-limit`, … when the proxy did), from request to the first byte of the answer's body, a retry's wait included: a slow replica shows here",
      labelNames: ['upstream', 'stream'],
      buckets: CALL_SECONDS_BUCKETS,
      registers,
    });
    this.pausedRefusals = new Counter({
      name: 'openforge_proxy_paused_refusals_total',
      help: 'Model calls refused with 429 while the proxy was paused (not recorded: the harness retries them)',
      labelNames: ['protocol'],
      registers,
    });
    this.retries = new Counter({
      name: 'openforge_proxy_upstream_retries_total',
      help: 'Upstream attempts that failed and were tried again, by upstream and reason (an HTTP status, or connection)',
      labelNames: ['upstream', 'reason'],
      registers,
    });
    this.recordFailures = new Counter({
      name: 'openforge_proxy_record_failures_total',
      help: 'Calls answered whose record could not be stored (each is logged)',
      registers,
    });
    this.ejections = new Counter({
      name: 'openforge_proxy_upstream_ejections_total',
      help: 'Times a replica was left out of routing after failing several times in a row',
      labelNames: ['upstream'],
      registers,
    });
    new Gauge({
      name: 'openforge_proxy_upstream_in_routing',
      help: '1 while calls are routed to the replica, 0 while it is ejected after failing several times in a row',
      labelNames: ['upstream'],
      registers,
      aggregator: 'min',
      collect() {
        for (const replica of state.upstreams()) this.labels(replica.url).set(replica.inRouting ? 1 : 0);
      },
    });
    let countedWithoutTokenIds = 0;
    new Counter({
      name: 'openforge_proxy_policy_calls_without_token_ids_total',
      help: 'Policy calls stored flagged as having come back from the upstream without token ids: no training data in them',
      registers,
      // every proxy writing into one store reads the store's count
      aggregator: 'max',
      collect() {
        const stored = state.policyCallsWithoutTokenIds();
        if (stored === undefined || stored <= countedWithoutTokenIds) return;
        this.inc(stored - countedWithoutTokenIds);
        countedWithoutTokenIds = stored;
      },
    });
    gauge(registers, 'openforge_proxy_calls_in_flight', 'Model calls being answered now', state.inFlight);
    gauge(
      registers,
      'openforge_proxy_paused',
      '1 while model calls are refused for a weight update (/control/pause), else 0',
      () => (state.paused() ? 1 : 0),
      'max',
    );
    gauge(registers, 'openforge_proxy_calls_held', 'Model calls waiting, held, for the resume of a pause in mode hold', state.held);
    gauge(registers, 'openforge_proxy_records_pending', 'Recorded calls handed to the store and not yet written', state.pendingRecords);
    gauge(
      registers,
      'openforge_proxy_serving_thread_busy_ratio',
      'How busy the thread serving calls was over the last window (0 to 1); at 0.9 and above calls queue for it',
      () => state.servingThreadBusy() ?? 0,
      'first',
    );
    gauge(registers, 'process_resident_memory_bytes', 'Resident memory size in bytes', () => process.memoryUsage.rss(), 'first');
    gauge(registers, 'nodejs_heap_used_bytes', 'V8 heap in use in bytes', () => process.memoryUsage().heapUsed, 'first');
    new Counter({
      name: 'process_cpu_seconds_total',
      help: 'User and system CPU time of the process, all threads, in seconds',
      registers,
      aggregator: 'first',
      collect() {
        const { user, system } = process.cpuUsage();
        this.reset();
        this.inc((user + system) / 1e6);
      },
    });
  }

  /** One finished call, from its record (never its bodies): ~5 µs. */
  callFinished(call: RecordedCall): void {
    this.calls.labels(call.protocol, call.label, String(call.status)).inc();
    const stream = call.stream ? 'true' : 'false';
    this.duration.labels(call.protocol, call.label, stream).observe(call.durationMs / 1000);
    if (call.ttfbMs === null) return;
    this.firstByte.labels(call.protocol, call.label, stream).observe(call.ttfbMs / 1000);
    this.firstByteByUpstream.labels(call.upstream, stream).observe(call.ttfbMs / 1000);
  }

  pausedRefusal(protocol: string): void {
    this.pausedRefusals.labels(protocol).inc();
  }

  upstreamRetry(upstream: string, reason: string): void {
    this.retries.labels(upstream, reason).inc();
  }

  upstreamEjected(upstream: string): void {
    this.ejections.labels(upstream).inc();
  }

  recordFailed(): void {
    this.recordFailures.inc();
  }

  /** The text exposition format, and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** Every metric's current series, to be added up with other registries' (`AggregatorRegistry.aggregate`). */
  snapshot(): Promise<MetricsSnapshot> {
    return this.registry.getMetricsAsJSON();
  }
}

function gauge(registers: Registry[], name: string, help: string, read: () => number, aggregator: Aggregator = 'sum'): void {
  new Gauge({
    name,
    help,
    registers,
    aggregator,
    collect() {
      this.set(read());
    },
  });
}
