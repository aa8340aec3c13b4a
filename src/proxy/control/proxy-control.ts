import type { CallRecorder } from '../recording/call-recorder.js';
import type { InFlightCalls } from '../calls/in-flight.js';
import type { PauseSwitch } from './pause-switch.js';
import type { ServingLoad } from './serving-load.js';
import type { ReplicaState } from '../upstream/replica-health.js';

export const DEFAULT_RETRY_AFTER_SEC = 5;

export type PauseMode = 'refuse' | 'hold';
/** Hold mode: each new call waits for the resume, at most this long. */
export interface HoldOptions {
  maxHoldSec: number;
}
export const DEFAULT_DRAIN_TIMEOUT_SEC = 60;

/** The proxy's state as `/control/*` answers it (the same JSON in-process). */
export interface ProxyStatus {
  paused: boolean;
  /** While paused: `refuse` (429 + Retry-After) or `hold` (calls wait for the resume). */
  mode: PauseMode | null;
  /** Calls held now, waiting for the resume. */
  held: number;
  in_flight: number;
  retry_after_sec: number | null;
  /** The policy weight version recorded with every call answered now (the last resume's that named one). */
  weight_version: string | null;
  pending_records: number;
  serving_thread: ServingLoad;
  upstreams: { url: string; in_routing: boolean; consecutive_failures: number; ejected_until?: string }[];
}

export interface ProxyControlState {
  pause: PauseSwitch;
  inFlight: InFlightCalls;
  recorder: CallRecorder;
  /** How busy the serving thread has been. */
  load: () => ServingLoad;
  /** Each upstream replica's URL and health. */
  upstreams: () => ({ url: string } & ReplicaState)[];
}

/**
 * Pause and resume model calls around a weight update, drain in-flight calls, read the state: what
 * `/control/*` does over HTTP, and what a process that started the proxy calls in place (the rollout service).
 */
export class ProxyControl {
  constructor(private readonly state: ProxyControlState) {}

  status(): ProxyStatus {
    const { pause, inFlight, recorder } = this.state;
    return {
      paused: pause.paused,
      mode: pause.paused ? (pause.maxHoldSec !== null ? 'hold' : 'refuse') : null,
      held: pause.held,
      in_flight: inFlight.size,
      retry_after_sec: pause.retryAfterSec,
      weight_version: pause.weightVersion,
      pending_records: recorder.pendingCount,
      serving_thread: this.state.load(),
      upstreams: this.state.upstreams().map((u) => ({
        url: u.url,
        in_routing: u.inRouting,
        consecutive_failures: u.consecutiveFailures,
        ...(u.inRouting ? {} : { ejected_until: new Date(u.ejectedUntil).toISOString() }),
      })),
    };
  }

  /**
   * New model calls are refused with 429 and `Retry-After: retryAfterSec` until `resume`, or, with `hold`,
   * held until then (each at most `maxHoldSec`, then refused so).
   */
  pause(retryAfterSec = DEFAULT_RETRY_AFTER_SEC, hold?: HoldOptions): ProxyStatus {
    this.state.pause.pause(retryAfterSec, hold);
    return this.status();
  }

  /** `weightVersion`: the weights the engine serves from now on, recorded with every call it answers. */
  resume(weightVersion?: string): ProxyStatus {
    this.state.pause.resume(weightVersion);
    return this.status();
  }

  /**
   * Pauses (draining means refusing new calls, or a busy proxy would never get to zero), then waits up to
   * `timeoutSec` for the calls in flight to end and their records to be written. `retryAfterSec` defaults to
   * the current pause's, else 5 s.
   */
  async drain(timeoutSec = DEFAULT_DRAIN_TIMEOUT_SEC, retryAfterSec?: number, hold?: HoldOptions): Promise<ProxyStatus & { drained: boolean }> {
    this.state.pause.pause(retryAfterSec ?? this.state.pause.retryAfterSec ?? DEFAULT_RETRY_AFTER_SEC, hold);
    const deadline = Date.now() + timeoutSec * 1000;
    const drained = (await this.state.inFlight.settled(timeoutSec * 1000)) && (await this.state.recorder.flushed(deadline - Date.now()));
    return { drained, ...this.status() };
  }
}
