import type { ServerResponse } from 'node:http';
import type { SseEvent } from './protocols/types.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // tells nginx-style proxies in front of us not to buffer either
  'x-accel-buffering': 'no',
};

function format(event: SseEvent): string {
  return event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`;
}

/**
 * Writes SSE events to the harness as soon as they are produced, honouring backpressure, with a
 * `: keepalive` comment after every `keepaliveMs` of upstream silence.
 */
export class SseWriter {
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    keepaliveMs: number,
  ) {
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    this.keepalive = setTimeout(() => {
      if (this.writable()) this.res.write(': keepalive\n\n');
      this.keepalive.refresh();
    }, keepaliveMs);
  }

  /** The upstream said something: restart the silence clock. */
  heardUpstream(): void {
    this.keepalive.refresh();
  }

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
