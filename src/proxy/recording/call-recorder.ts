import type { RecordedCall } from '../../records/call.js';
import { errorMessage } from '../../util/errors.js';
import type { CallSink, ProxyLogger } from '../types.js';

/**
 * Hands finished calls to the sink without making the harness wait, and keeps track of the
 * writes still in flight so that closing the proxy loses none. A failing sink is logged, never
 * surfaced to the harness.
 */
export class CallRecorder {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly sink: CallSink,
    private readonly logger: ProxyLogger,
    private readonly failures?: { recordFailed(): void },
  ) {}

  record(call: RecordedCall): void {
    const write = Promise.resolve()
      .then(() => this.sink.record(call))
      .catch((err: unknown) => {
        this.failures?.recordFailed();
        this.logger.error(`proxy: could not record call ${call.seq} of rollout ${call.rolloutId}: ${errorMessage(err)}`);
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) {
      await null; // `record` hands calls to the sink a microtask later: let those just recorded arrive first
      void this.sink.flush?.().catch(() => undefined);
      await Promise.all(this.pending);
    }
  }

  /** Like `flush`, giving up after `timeoutMs`; true when every record was written. */
  async flushed(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, timeoutMs));
    });
    await Promise.race([this.flush(), timeout]);
    clearTimeout(timer);
    return this.pending.size === 0;
  }
}
