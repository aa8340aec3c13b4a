import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ChatBody } from '../chat-wire.js';

/** Marks the upstream's `data: [DONE]`. */
export const STREAM_DONE = Symbol('stream done');

/** Larger single events than this mean a broken upstream, not a big chunk. */
const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Parses an upstream SSE body into chunk objects as the bytes arrive. Ends after [DONE] (the rest
 * of the body is drained so the keep-alive socket can be reused) or when the body ends; throws
 * on a connection error or an event that is not JSON.
 */
export async function* upstreamChunks(response: IncomingMessage): AsyncGenerator<ChatBody | typeof STREAM_DONE> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event), maxBufferSize: MAX_EVENT_CHARS });
  const decoder = new TextDecoder();
  let done = false;
  for await (const part of response) {
    if (done) continue;
    parser.feed(decoder.decode(part as Buffer, { stream: true }));
    for (const event of events.splice(0)) {
      if (event.data === '[DONE]') {
        done = true;
        yield STREAM_DONE;
        break;
      }
      yield parseChunk(event.data);
    }
  }
}

function parseChunk(data: string): ChatBody {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new Error(`upstream sent an event that is not JSON: ${data.slice(0, 200)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`upstream sent an event that is not a JSON object: ${data.slice(0, 200)}`);
  }
  return value as ChatBody;
}
