import { performance } from 'node:perf_hooks';
import type { ProxyLogger } from '../types.js';

/** From this share of a window spent running, a new call waits for the serving thread. */
const SATURATED = 0.9;
/** Below this again, a later saturation is reported anew. */
const RECOVERED = 0.7;

export const DEFAULT_SERVING_LOAD_WINDOW_MS = 10_000;

/** What /control/status reports of the serving thread. */
export interface ServingLoad {
  /** The share of the last window the thread spent running rather than waiting for I/O (0–1); null before the first window ends. */
  busy: number | null;
  window_sec: number;
}

/**
 * Watches how busy the proxy's one serving thread is: its event loop's utilization, window by window.
 * A thread busy all the time makes every new call wait for it, so the streamed time to first byte grows
 * with the load (see README, Performance). Reported in /control/status, and once per saturated spell as a
 * warning that says what to do about it.
 */
export class ServingLoadMonitor {
  private previous = performance.eventLoopUtilization();
  private busy: number | null = null;
  private saturated = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly windowMs: number,
    /** Where the warning goes; none, no warning. */
    private readonly logger: ProxyLogger | undefined,
  ) {
    if (!(Number.isFinite(windowMs) && windowMs >= 10)) {
      throw new RangeError(`servingLoadWindowMs ${windowMs}: use a window of at least 10 ms (the default is ${DEFAULT_SERVING_LOAD_WINDOW_MS})`);
    }
  }

  /** Starts watching from now (so a start-up's own work does not read as load). */
  start(): void {
    this.previous = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.sample(), this.windowMs);
    this.timer.unref();
  }

  current(): ServingLoad {
    return { busy: this.busy, window_sec: this.windowMs / 1000 };
  }

  close(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.previous).utilization;
    this.previous = now;
    this.busy = Math.round(busy * 1000) / 1000;
    if (!this.saturated && busy >= SATURATED) {
      this.saturated = true;
      this.logger?.warn(
        `proxy: the serving thread was ${Math.round(busy * 100)} % busy over the last ${this.windowMs / 1000} s, so new calls wait for it ` +
          'and streams take longer to their first byte. Give the proxy a core that no other busy process shares, or split the rollouts across several proxies.',
      );
    } else if (this.saturated && busy < RECOVERED) {
      this.saturated = false;
    }
  }
}
