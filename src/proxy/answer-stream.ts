import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatBody } from '../engine-wire/chat-wire.js';
import { TokenCapture } from '../engine-wire/token-capture.js';
import { errorMessage } from '../util/errors.js';
import type { CallOutcome } from './call-outcome.js';
import type { AnswerTranslator, SseEvent, StreamTranslator } from './protocols/types.js';
import { SseWriter } from './sse-writer.js';
import { STREAM_DONE, UpstreamChunkParser } from './upstream/sse-chunks.js';

interface Upstream {
  url: string;
  response: IncomingMessage;
}

/**
 * Passes an upstream stream through to the harness event by event (never buffered), capturing
 * tokens from the raw chunks before the protocol strips them. A failure after the stream started
 * ends it with the protocol's error event; a client disconnect (the signal) ends it silently.
 */
export function answerStream(
  call: AnswerTranslator,
  upstream: Upstream,
  res: ServerResponse,
  signal: AbortSignal,
  keepaliveMs: number,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  return new Promise((resolve) => new StreamRelay(call.streamTranslator(), upstream, new SseWriter(res, keepaliveMs), signal, elapsedMs, resolve).start());
}

/**
 * One stream, driven by the upstream body's events rather than an async loop: a stream relays every
 * token of an answer, the proxy's busiest path, and a loop costs promises per event. What one read
 * of the upstream completes is translated and sent in one write (one event, or several when the proxy
 * fell behind); while the harness's socket is full the upstream body is paused.
 */
class StreamRelay {
  private readonly capture = new TokenCapture();
  private readonly parser = new UpstreamChunkParser();
  private pending: SseEvent[] = [];
  /** The upstream sent [DONE]. */
  private done = false;
  private settled = false;
  private ttfbMs: number | null = null;

  constructor(
    private readonly translator: StreamTranslator,
    private readonly upstream: Upstream,
    private readonly writer: SseWriter,
    private readonly signal: AbortSignal,
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
    try {
      this.parser.feed(part, this.onChunk);
    } catch (err) {
      this.flush();
      this.fail(err);
      return;
    }
    this.flush();
  }

  private readonly onChunk = (chunk: ChatBody | typeof STREAM_DONE): void => {
    if (chunk === STREAM_DONE) {
      this.done = true;
      return;
    }
    if (chunk.error !== undefined && chunk.choices === undefined) {
      throw new Error(`upstream reported an error mid-stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
    }
    this.capture.addChunk(chunk);
    for (const event of this.translator.push(chunk)) this.pending.push(event);
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
    if (this.settled) return;
    // Tolerate a missing [DONE] once the model finished; a stream cut before that is a failure.
    if (!this.done && this.capture.result().finishReason === null) {
      this.fail(new Error('upstream stream ended before it finished'));
      return;
    }
    this.writer.writeNow(this.translator.end());
    this.settle(null);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    let error = 'client disconnected';
    if (!this.signal.aborted) {
      error = `upstream stream failed: ${errorMessage(err)}`;
      this.writer.writeNow(this.translator.fail(error));
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
      response: this.translator.assembled(),
      error,
      ttfbMs: this.ttfbMs,
      tokens: this.capture.result(),
      upstream: this.upstream.url,
    });
  }
}
