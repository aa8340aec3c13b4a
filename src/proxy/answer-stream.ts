import type { IncomingMessage, ServerResponse } from 'node:http';
import { TokenCapture } from '../engine-wire/token-capture.js';
import { errorMessage } from '../util/errors.js';
import type { CallOutcome } from './call-outcome.js';
import type { AnswerTranslator } from './protocols/types.js';
import { SseWriter } from './sse-writer.js';
import { STREAM_DONE, upstreamChunks } from './upstream/sse-chunks.js';

/**
 * Passes an upstream stream through to the harness event by event (never buffered), capturing
 * tokens from the raw chunks before the protocol strips them. A failure after the stream started
 * ends it with the protocol's error event; a client disconnect (the signal) ends it silently.
 */
export async function answerStream(
  call: AnswerTranslator,
  upstream: { url: string; response: IncomingMessage },
  res: ServerResponse,
  signal: AbortSignal,
  keepaliveMs: number,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  const translator = call.streamTranslator();
  const capture = new TokenCapture();
  const writer = new SseWriter(res, keepaliveMs);
  let ttfbMs: number | null = null;
  let error: string | null = null;
  try {
    let finished = false;
    for await (const chunk of upstreamChunks(upstream.response)) {
      writer.heardUpstream();
      if (chunk === STREAM_DONE) {
        finished = true;
        continue;
      }
      if (chunk.error !== undefined && chunk.choices === undefined) {
        throw new Error(`upstream reported an error mid-stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
      }
      capture.addChunk(chunk);
      const events = translator.push(chunk);
      if (events.length > 0) ttfbMs ??= elapsedMs();
      await writer.write(events);
    }
    // Tolerate a missing [DONE] once the model finished; a stream cut before that is a failure.
    if (!finished && capture.result().finishReason === null) throw new Error('upstream stream ended before it finished');
    await writer.write(translator.end());
  } catch (err) {
    if (signal.aborted) {
      error = 'client disconnected';
    } else {
      error = `upstream stream failed: ${errorMessage(err)}`;
      await writer.write(translator.fail(error));
    }
  } finally {
    writer.end();
  }
  return {
    status: 200,
    response: translator.assembled(),
    error,
    ttfbMs,
    tokens: capture.result(),
    upstream: upstream.url,
  };
}
