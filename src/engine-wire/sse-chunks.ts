import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { parseAnswer } from './answer-json.js';
import type { ChatBody } from './chat-wire.js';

/** Marks the upstream's `data: [DONE]`. */
export const STREAM_DONE = Symbol('stream done');

/** Larger single events than this mean a broken upstream, not a big chunk. */
const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Reads an upstream SSE body as its bytes arrive: `feed` hands the data of each event the bytes
 * completed to `onEvent`, in order, then STREAM_DONE for `data: [DONE]`, after which it hands over
 * nothing more (the caller reads the rest of the body so the keep-alive socket can be reused).
 */
export class UpstreamEventReader {
  private readonly events: EventSourceMessage[] = [];
  private readonly parser = createParser({ onEvent: (event) => this.events.push(event), maxBufferSize: MAX_EVENT_CHARS });
  /**
   * Node's decoder, not TextDecoder: ~0.25 against ~0.8 µs for one of the sim's events in a loop (TextDecoder's
   * streaming mode goes through ICU and makes two-byte strings); both keep a character split across reads.
   */
  private readonly decoder = new StringDecoder('utf8');
  private started = false;
  private done = false;

  feed(part: Buffer, onEvent: (data: string | typeof STREAM_DONE) => void): void {
    if (this.done) return;
    let text = this.decoder.write(part);
    if (!this.started && text.length > 0) {
      this.started = true;
      // a byte order mark opening the stream is not part of it (the SSE spec; TextDecoder dropped it too)
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.parser.feed(text);
    const events = this.events.splice(0);
    for (const event of events) {
      if (event.data === '[DONE]') {
        this.done = true;
        onEvent(STREAM_DONE);
        return;
      }
      onEvent(event.data);
    }
  }
}

/**
 * Parses an upstream SSE body into chunk objects as its bytes are read: `feed` hands each chunk the
 * bytes completed to `onChunk`, in order, as `UpstreamEventReader` hands over their data. Throws on
 * an event that is not JSON, after handing over the chunks before it.
 */
export class UpstreamChunkParser {
  private readonly reader = new UpstreamEventReader();

  feed(part: Buffer, onChunk: (chunk: ChatBody | typeof STREAM_DONE) => void): void {
    this.reader.feed(part, (data) => onChunk(data === STREAM_DONE ? data : parseChunk(data)));
  }
}

/**
 * From this size on, an event with the prompt's ids is encoded back to bytes for `parseAnswer`: its
 * ids cost ~3x less that way, and below it `JSON.parse` alone is faster than the encoding.
 */
const BYTES_PARSE_MIN_CHARS = 32 * 1024;

/** One event's data as a chunk object; throws, naming the event, when it is not a JSON object. */
export function parseChunk(data: string): ChatBody {
  let value: unknown;
  try {
    if (data.length >= BYTES_PARSE_MIN_CHARS && data.includes('"prompt_token_ids"')) return parseAnswer(Buffer.from(data, 'utf8'));
    value = JSON.parse(data);
  } catch (err) {
    const what = err instanceof SyntaxError ? 'JSON' : 'a JSON object';
    throw new Error(`upstream sent an event that is not ${what}: ${data.slice(0, 200)}`, { cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`upstream sent an event that is not a JSON object: ${data.slice(0, 200)}`);
  }
  return value as ChatBody;
}

/** What an upstream's error event inside a stream says (an `error` and no `choices`), or undefined for any other chunk. */
export function streamError(chunk: ChatBody): string | undefined {
  if (chunk.error === undefined || chunk.choices !== undefined) return undefined;
  return `upstream reported an error mid-stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}`;
}
