import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { parseAnswer } from '../../engine-wire/answer-json.js';
import type { ChatBody } from '../../engine-wire/chat-wire.js';

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

/**
 * From this size on, an event with the prompt's ids is encoded back to bytes for `parseAnswer`: its
 * ids cost ~3x less that way, and below it `JSON.parse` alone is faster than the encoding.
 */
const BYTES_PARSE_MIN_CHARS = 32 * 1024;

function parseChunk(data: string): ChatBody {
  let value: unknown;
  try {
    if (data.length >= BYTES_PARSE_MIN_CHARS && data.includes('"prompt_token_ids"')) return parseAnswer(Buffer.from(data, 'utf8'));
    value = JSON.parse(data);
  } catch (err) {
    const what = err instanceof SyntaxError ? 'JSON' : 'a JSON object';
    throw new Error(`upstream sent an event that is not ${what}: ${data.slice(0, 200)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`upstream sent an event that is not a JSON object: ${data.slice(0, 200)}`);
  }
  return value as ChatBody;
}
