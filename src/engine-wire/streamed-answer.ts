import type { UnreadableAnswer } from './answer-tokens.js';
import { ChatCompletionAssembler } from './chat-assembler.js';
import type { ChatBody } from './chat-wire.js';
import type { ClientView, StreamedAnswer } from '../records/call.js';
import { stripEngineFields } from './engine-fields.js';
import { STREAM_DONE, UpstreamChunkParser, streamError } from './sse-chunks.js';
import { TokenCapture, type CapturedTokens } from './token-capture.js';

/** What a record keeps of a streamed answer. */
export interface StreamedAnswerRecord {
  tokens: CapturedTokens;
  /** The `chat.completion` the stream's chunks add up to, as the harness saw them. */
  response: ChatBody;
  /** Why the reading stopped before the stream's end (an event that is not JSON, an error event), else null. */
  problem: string | null;
}

/** A reading's tokens as a record keeps them: with its `problem`, when it has one. */
export function recordedTokens(read: StreamedAnswerRecord): CapturedTokens | UnreadableAnswer {
  return read.problem === null ? read.tokens : { ...read.tokens, problem: read.problem };
}

class StreamStopped extends Error {}

/**
 * Reads a relayed stream's tokens and the response it adds up to, as the proxy would have while
 * relaying it: chunk by chunk up to [DONE], stopping at an error event or at an event that is not
 * JSON (what came before it is kept). Never throws.
 */
export function readStreamedAnswer(answer: StreamedAnswer): StreamedAnswerRecord {
  const reader = new StreamedAnswerReader(answer.view);
  reader.feed(Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength));
  return reader.result();
}

/** `readStreamedAnswer` part by part, for a stream read as it arrives. */
export class StreamedAnswerReader {
  private readonly parser = new UpstreamChunkParser();
  private readonly capture = new TokenCapture();
  private readonly assembler = new ChatCompletionAssembler();
  private problem: string | null = null;

  constructor(private readonly view: ClientView) {}

  feed(part: Buffer): void {
    if (this.problem !== null) return;
    try {
      this.parser.feed(part, this.onChunk);
    } catch (err) {
      this.problem =
        err instanceof StreamStopped ? err.message : `the upstream's stream stopped being readable: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  result(): StreamedAnswerRecord {
    return { tokens: this.capture.result(), response: this.assembler.result(), problem: this.problem };
  }

  private readonly onChunk = (chunk: ChatBody | typeof STREAM_DONE): void => {
    if (chunk === STREAM_DONE) return;
    const error = streamError(chunk);
    if (error !== undefined) throw new StreamStopped(error);
    this.capture.addChunk(chunk);
    this.assembler.add(stripEngineFields(chunk, this.view));
  };
}
