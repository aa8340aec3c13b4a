import { PassThrough, type Readable } from 'node:stream';
import { parseContextOf, type ModelFamily } from '../../families/family.js';
import type { ChatRequestBody } from '../../engine-wire/chat-wire.js';
import { STREAM_DONE, UpstreamEventReader } from '../../engine-wire/sse-chunks.js';
import { errorMessage } from '../../util/errors.js';
import type { CallSignal } from '../calls/call-cancel.js';
import type { ProxySession } from '../session.js';
import { readBytes } from '../upstream/http-client.js';
import type { UpstreamAnswer, UpstreamPool } from '../upstream/upstream-pool.js';
import type { TokenInOptions } from '../types.js';
import { ChatAnswer } from './chat-answer.js';
import { enginePiece, type EnginePiece } from './engine-answer.js';
import { engineRequest } from './engine-request.js';
import { answerKey, messageKey } from './message-keys.js';
import { TokenHistories, type ServedTurn } from './token-history.js';
import { countsTurns, tokenPrompt } from './token-prompt.js';

/** A whole engine answer larger than this is broken. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * Token-in/token-out: serves a policy call's Chat Completions request from an engine that takes token
 * ids. The prompt is the rollout's exact token history plus what the harness appended (or, when the
 * harness's history is not the one served, the whole conversation rendered), the engine's sampled ids
 * are parsed by the family into the Chat Completions answer the protocols translate, and the turn is
 * remembered for the next call.
 */
export class TokenInEngine {
  private readonly histories: TokenHistories;
  private readonly turnsCounted: boolean;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly options: TokenInOptions,
  ) {
    this.turnsCounted = countsTurns(options.family);
    this.histories = new TokenHistories(options.transient);
  }

  get family(): ModelFamily {
    return this.options.family;
  }

  /** Like `UpstreamPool.postChat`: a 2xx answer's body (Chat Completions bytes, whole or SSE), or the engine's failure. */
  async post(request: ChatRequestBody, session: ProxySession, signal: CallSignal): Promise<UpstreamAnswer> {
    const { family } = this.options;
    const messages = Array.isArray(request.messages) ? request.messages : [];
    const keys = messages.map(messageKey);
    const continued = this.histories.continued(session.rolloutId, keys);
    const prompt = tokenPrompt(family, request, continued, this.turnsCounted);
    const sent = engineRequest(request, prompt.ids, this.options);
    const answer = await this.pool.post(sent.path, sent.body, session, signal);
    if (!answer.ok) return answer;
    const model = String(this.options.sampling?.model ?? request.model ?? '');
    const chat = new ChatAnswer(family, parseContextOf(request), prompt.ids, model, request.logprobs === true);
    const served = (): void => {
      const turnKeys = [...keys, answerKey(chat.parsed())];
      this.histories.served(
        session.rolloutId,
        { keys: turnKeys, promptIds: prompt.ids, completionIds: chat.ids, turnsEnded: prompt.turnsEnded } satisfies ServedTurn,
        continued?.turn,
      );
    };
    if (!sent.stream) {
      const piece = enginePiece(this.options.kind, JSON.parse((await readBytes(answer.response, MAX_ANSWER_BYTES)).toString('utf8')) as unknown);
      // an engine that answers whole (SGLang) to a harness that streams: the answer goes out as one stream
      const text = request.stream === true ? [chat.start(), ...chat.push(piece), 'data: [DONE]\n\n'].join('') : JSON.stringify(chat.whole(piece));
      served();
      return { ...answer, response: bodyOf(text) };
    }
    return { ...answer, response: this.relay(answer.response, chat, served) };
  }

  /** The engine's SSE stream as Chat Completions chunks, written as each engine chunk is read. */
  private relay(engine: Readable, chat: ChatAnswer, served: () => void): Readable {
    const out = new PassThrough();
    const reader = new UpstreamEventReader();
    let finished = false;
    out.write(chat.start());
    engine.on('data', (part: Buffer) => {
      // what one read of the engine completes goes out as one chunk: fewer events for the harness's protocol to translate
      const read: EnginePiece = { ids: [], logprobs: [], finish: null };
      try {
        reader.feed(part, (data) => {
          if (data === STREAM_DONE) return;
          const piece = enginePiece(this.options.kind, JSON.parse(data) as unknown);
          read.ids.push(...piece.ids);
          read.logprobs.push(...piece.logprobs);
          read.finish ??= piece.finish;
        });
      } catch (err) {
        out.destroy(new Error(`the engine's stream is unreadable: ${errorMessage(err)}`));
        engine.destroy();
        return;
      }
      if (read.ids.length === 0 && read.finish === null) return;
      const events = chat.push(read);
      if (events.length > 0) out.write(events.join(''));
      if (read.finish !== null) finished = true;
    });
    engine.once('end', () => {
      if (finished) {
        served();
        out.end('data: [DONE]\n\n');
      } else out.end();
    });
    engine.once('error', (err) => out.destroy(err));
    out.once('close', () => {
      if (!engine.readableEnded) engine.destroy();
    });
    return out;
  }
}

function bodyOf(json: string): Readable {
  const out = new PassThrough();
  out.end(json);
  return out;
}
