import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { SseEvent } from '../protocols/types.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // tells nginx-style proxies in front of us not to buffer either
  'x-accel-buffering': 'no',
};

/** The event stream's headers, sent now; once only (a held call's stream has them before its answer starts). */
export function startEventStream(res: ServerResponse): void {
  if (res.headersSent) return;
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
}

function format(event: SseEvent): string {
  return event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`;
}

/**
 * Writes SSE events to the harness as soon as they are produced, honouring backpressure, with a
 * `: keepalive` comment after every `keepaliveMs` of upstream silence.
 */
export class SseWriter {
  private keepalive: NodeJS.Timeout;
  /** When the upstream last said something (or the last keepalive went out), on `performance.now()`'s clock. */
  private lastHeard = performance.now();

  constructor(
    private readonly res: ServerResponse,
    private readonly keepaliveMs: number,
  ) {
    startEventStream(res);
    this.keepalive = setTimeout(this.whenQuiet, keepaliveMs);
  }

  /**
   * The upstream said something: restart the silence clock. A time noted, not the timer refreshed:
   * a refresh re-links the timer in Node's lists on every upstream read (~1 µs an event in place), while
   * the timer, when it fires, can see for itself how long the upstream has been quiet.
   */
  heardUpstream(): void {
    this.lastHeard = performance.now();
  }

  private readonly whenQuiet = (): void => {
    const quietMs = performance.now() - this.lastHeard;
    if (quietMs < this.keepaliveMs) {
      this.keepalive = setTimeout(this.whenQuiet, this.keepaliveMs - quietMs);
      return;
    }
    if (this.writable()) this.res.write(': keepalive\n\n');
    this.lastHeard = performance.now();
    this.keepalive = setTimeout(this.whenQuiet, this.keepaliveMs);
  };

  async write(events: SseEvent[]): Promise<void> {
    if (!this.writeNow(events)) await new Promise<void>((resolve) => this.whenDrained(resolve));
  }

  /** Writes the events in one send; false when the harness's socket is full (see `whenDrained`). */
  writeNow(events: SseEvent[]): boolean {
    if (events.length === 0 || !this.writable()) return true;
    const text = events.length === 1 ? format(events[0] as SseEvent) : events.map(format).join('');
    return this.res.write(text);
  }

  /** Calls `then` once the harness has read what was written, or is gone. */
  whenDrained(then: () => void): void {
    const done = () => {
      this.res.off('drain', done);
      this.res.off('close', done);
      then();
    };
    this.res.on('drain', done);
    this.res.on('close', done);
  }

  end(): void {
    clearTimeout(this.keepalive);
    if (this.writable()) this.res.end();
  }

  private writable(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }
}
