import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { STREAM_DONE, UpstreamEventReader } from '../../engine-wire/sse-chunks.js';
import { errorMessage } from '../../util/errors.js';
import type { CallOutcome } from './call-outcome.js';
import type { AnswerTranslator, SseEvent } from '../protocols/types.js';
import { SseWriter } from '../http/sse-writer.js';
import { CutEvents, TranslatedEvents, type EventRelay } from './stream-events.js';
import type { CallSignal } from './call-cancel.js';

interface Upstream {
  url: string;
  response: Readable;
}

/**
 * Passes an upstream stream through to the harness event by event (never buffered); its tokens are
 * captured from the raw chunks, or read later from the upstream's bytes (see `stream-events.ts`). A
 * failure after the stream started ends it with the protocol's error event; a client disconnect (the
 * signal) ends it silently.
 */
export function answerStream(
  call: AnswerTranslator,
  upstream: Upstream,
  res: ServerResponse,
  signal: CallSignal,
  keepaliveMs: number,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  const events = call.streamCut ? new CutEvents(call.streamCut, call.streamTranslator()) : new TranslatedEvents(call.streamTranslator());
  return new Promise((resolve) => new StreamRelay(events, upstream, new SseWriter(res, keepaliveMs), signal, elapsedMs, resolve).start());
}

/**
 * Streams under way yield to new work. A part read for a stream that has relayed a token already waits
 * until the event loop's I/O phase is over (`setImmediate`): with hundreds of streams, each engine
 * step's tokens arrive as one burst, and relaying them at once would hold back the harness requests
 * and the first tokens of new streams read in the same phase (the time to first byte). Order within a
 * stream is kept, and a held-back part waits at most the rest of that phase.
 */
const deferred = new Set<StreamRelay>();
let deferredScheduled = false;

function deferRelay(relay: StreamRelay): void {
  deferred.add(relay);
  if (deferredScheduled) return;
  deferredScheduled = true;
  setImmediate(relayDeferred);
}

function relayDeferred(): void {
  deferredScheduled = false;
  const relays = [...deferred];
  deferred.clear();
  for (const relay of relays) relay.relayQueued();
}

/**
 * One stream, driven by the upstream body's events rather than an async loop: a stream relays every
 * token of an answer, the proxy's busiest path, and a loop costs promises per event. What one read
 * of the upstream completes is translated and sent in one write (one event, or several when the proxy
 * fell behind); while the harness's socket is full the upstream body is paused.
 */
class StreamRelay {
  /** Parts read after the first token, waiting for the end of the loop's I/O phase (see `deferRelay`). */
  private queued: Buffer[] = [];
  private readonly reader = new UpstreamEventReader();
  private pending: SseEvent[] = [];
  /** The upstream sent [DONE]. */
  private done = false;
  private settled = false;
  private ttfbMs: number | null = null;

  constructor(
    private readonly events: EventRelay,
    private readonly upstream: Upstream,
    private readonly writer: SseWriter,
    private readonly signal: CallSignal,
    private readonly elapsedMs: () => number,
    private readonly resolve: (outcome: CallOutcome) => void,
  ) {}

  start(): void {
    const body = this.upstream.response;
    body.on('data', (part: Buffer) => this.read(part));
    body.once('end', () => this.ended());
    body.once('error', (err) => this.fail(err));
    body.once('close', () => {
      if (!body.readableEnded) this.fail(new Error('the upstream closed the connection mid-stream'));
    });
  }

  private read(part: Buffer): void {
    if (this.settled) return;
    this.writer.heardUpstream();
    if (this.queued.length === 0 && !this.events.hasOutput()) {
      this.relay([part]);
      return;
    }
    this.queued.push(part);
    if (this.queued.length === 1) deferRelay(this);
  }

  /** Relays the parts held back (called once the loop's I/O phase is over, or before the stream ends). */
  relayQueued(): void {
    if (this.queued.length === 0) return;
    const parts = this.queued;
    this.queued = [];
    this.relay(parts);
  }

  private relay(parts: Buffer[]): void {
    if (this.settled) return;
    try {
      for (const part of parts) {
        this.events.read(part);
        this.reader.feed(part, this.onEvent);
      }
    } catch (err) {
      this.flush();
      this.fail(err);
      return;
    }
    this.flush();
  }

  private readonly onEvent = (data: string | typeof STREAM_DONE): void => {
    if (data === STREAM_DONE) {
      this.done = true;
      return;
    }
    this.events.add(data, this.pending);
  };

  private flush(): void {
    if (this.pending.length === 0) return;
    this.ttfbMs ??= this.elapsedMs();
    const events = this.pending;
    this.pending = [];
    if (!this.writer.writeNow(events)) {
      const body = this.upstream.response;
      body.pause();
      this.writer.whenDrained(() => body.resume());
    }
  }

  private ended(): void {
    this.relayQueued();
    if (this.settled) return;
    // Tolerate a missing [DONE] once the model finished; a stream cut before that is a failure.
    if (!this.done && !this.events.finished()) {
      this.fail(new Error('upstream stream ended before it finished'));
      return;
    }
    this.writer.writeNow(this.events.translator.end());
    this.settle(null);
  }

  private fail(err: unknown): void {
    if (!this.signal.aborted) this.relayQueued();
    if (this.settled) return;
    let error = 'client disconnected';
    if (!this.signal.aborted) {
      error = `upstream stream failed: ${errorMessage(err)}`;
      this.writer.writeNow(this.events.translator.fail(error));
      // nothing more of it will be read
      this.upstream.response.destroy();
    }
    this.settle(error);
  }

  private settle(error: string | null): void {
    this.settled = true;
    this.writer.end();
    this.resolve({
      status: 200,
      ...this.events.recorded(error),
      error,
      ttfbMs: this.ttfbMs,
      upstream: this.upstream.url,
    });
  }
}
