import type { ChatBody } from '../../engine-wire/chat-wire.js';
import { parseChunk, streamError } from '../../engine-wire/sse-chunks.js';
import { StreamedAnswerReader, recordedTokens } from '../../engine-wire/streamed-answer.js';
import { TokenCapture } from '../../engine-wire/token-capture.js';
import type { CallOutcome } from './call-outcome.js';
import type { SseEvent, StreamCut, StreamTranslator } from '../protocols/types.js';

/** How a stream's upstream events become the harness's, and what the record keeps of them. */
export interface EventRelay {
  /** The events the data of one upstream event makes for the harness, added to `out`; throws on one that ends the stream. */
  add(data: string, out: SseEvent[]): void;
  /** One part of the upstream's body was read (before its events are added). */
  read(part: Buffer): void;
  /** A choice finished. */
  finished(): boolean;
  /** A token of the answer has been relayed (or output that came without ids). */
  hasOutput(): boolean;
  readonly translator: StreamTranslator;
  /** What the record keeps: the answer's tokens and response, or the bytes to read them from. */
  recorded(error: string | null): Pick<CallOutcome, 'response' | 'tokens' | 'streamedAnswer'>;
}

/** The parsed way: the chunk's tokens captured, then what the protocol's translator makes of it. */
function translate(data: string, capture: TokenCapture, translator: StreamTranslator, out: SseEvent[]): void {
  const chunk: ChatBody = parseChunk(data);
  const error = streamError(chunk);
  if (error !== undefined) throw new Error(error);
  capture.addChunk(chunk);
  for (const event of translator.push(chunk)) out.push(event);
}

/** Every event parsed, its tokens captured and handed to the protocol's translator. */
export class TranslatedEvents implements EventRelay {
  private readonly capture = new TokenCapture();

  constructor(readonly translator: StreamTranslator) {}

  read(): void {}

  add(data: string, out: SseEvent[]): void {
    translate(data, this.capture, this.translator, out);
  }

  finished(): boolean {
    return this.capture.result().finishReason !== null;
  }

  hasOutput(): boolean {
    return this.capture.hasOutput();
  }

  recorded(): Pick<CallOutcome, 'response' | 'tokens'> {
    return { response: this.translator.assembled(), tokens: this.capture.result() };
  }
}

/**
 * What a stream keeps of the upstream's bytes for its record at most. Past it the stream reads them
 * as they come instead (a long answer with logprobs is ~350 bytes a token as sent, against ~30 read):
 * a stream of up to ~3 000 tokens leaves the reading to the record's writing thread, a longer one
 * pays for it on this thread from there on, and no stream holds more than this much.
 */
export const MAX_HELD_STREAM_BYTES = 1024 * 1024;

/**
 * Every event cut from the upstream's text as the protocol says (`StreamCut`), nothing parsed; the
 * upstream's bytes are kept for the record, which reads the tokens and the response from them off
 * this thread (up to `MAX_HELD_STREAM_BYTES`; then they are read here as they come). An event the cut
 * leaves alone goes the parsed way, to the protocol's translator.
 */
export class CutEvents implements EventRelay {
  private parts: Buffer[] = [];
  private heldBytes = 0;
  /** Reads the stream here, once it outgrew what may be held. */
  private reader: StreamedAnswerReader | undefined;
  /** Reads only the events the cut left alone. */
  private readonly capture = new TokenCapture();
  private cutFinished = false;
  private cutOutput = false;

  constructor(
    private readonly cut: StreamCut,
    readonly translator: StreamTranslator,
    private readonly maxHeldBytes = MAX_HELD_STREAM_BYTES,
  ) {}

  read(part: Buffer): void {
    if (this.reader !== undefined) {
      this.reader.feed(part);
      return;
    }
    this.parts.push(part);
    this.heldBytes += part.length;
    if (this.heldBytes <= this.maxHeldBytes) return;
    this.reader = new StreamedAnswerReader(this.cut.view);
    for (const held of this.parts) this.reader.feed(held);
    this.parts = [];
  }

  add(data: string, out: SseEvent[]): void {
    const cut = this.cut.event(data);
    if (cut === undefined) {
      translate(data, this.capture, this.translator, out);
      return;
    }
    if (cut.finished) this.cutFinished = true;
    if (cut.output) this.cutOutput = true;
    if (cut.text !== null) out.push({ data: cut.text });
  }

  finished(): boolean {
    return this.cutFinished || this.capture.result().finishReason !== null;
  }

  hasOutput(): boolean {
    return this.cutOutput || this.capture.hasOutput();
  }

  recorded(error: string | null): Pick<CallOutcome, 'response' | 'tokens' | 'streamedAnswer'> {
    if (this.reader === undefined) {
      return { response: null, tokens: null, streamedAnswer: { bytes: Buffer.concat(this.parts), view: this.cut.view, relayError: error } };
    }
    const read = this.reader.result();
    return { response: read.response, tokens: recordedTokens(read) };
  }
}
