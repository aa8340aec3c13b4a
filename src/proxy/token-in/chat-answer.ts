import { randomBytes } from 'node:crypto';
import type { CompletionStreamParser, ModelFamily, ParseContext } from '../../families/family.js';
import type { TextStream } from '../../families/tokenizer/incremental-detokenizer.js';
import { chatDelta } from '../../families/chat-delta.js';
import type { ParsedCompletion, StreamDelta } from '../../families/types.js';
import type { EnginePiece } from './engine-answer.js';

/**
 * An engine's token-id answer as the Chat Completions answer vLLM's chat endpoint would have given for
 * it: the sampled ids decoded by the family's tokenizer and parsed by its reasoning and tool parsers,
 * with `prompt_token_ids`, `token_ids` and logprobs as vLLM returns them, so the proxy answers and
 * records it like any chat answer. Streamed, each engine chunk becomes a chunk as soon as the parser
 * can say what it holds; ids whose text says nothing yet ride along in the next chunk.
 */
export class ChatAnswer {
  readonly ids: number[] = [];
  private readonly logprobs: number[] = [];
  private readonly id = `chatcmpl-${randomBytes(12).toString('hex')}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly text: TextStream;
  private readonly parser: CompletionStreamParser;
  /** The first id (and logprob) that no chunk carried yet. */
  private carried = 0;
  private toolCallsStreamed = 0;

  constructor(
    private readonly family: ModelFamily,
    private readonly ctx: ParseContext,
    private readonly promptIds: readonly number[],
    private readonly model: string,
    /** The harness asked for logprobs: they name their tokens. */
    private readonly namedLogprobs: boolean,
  ) {
    this.text = family.streamDecoder();
    this.parser = family.createStreamParser(ctx);
  }

  /** The parse of everything sampled so far, as vLLM's non-streaming path gives it. */
  parsed(): ParsedCompletion {
    return this.family.parseCompletion(this.family.decode(this.ids), this.ctx);
  }

  /** The whole answer as a `chat.completion`. */
  whole(piece: EnginePiece): Record<string, unknown> {
    this.add(piece);
    const parsed = this.parsed();
    const message = {
      role: 'assistant',
      content: parsed.content,
      reasoning_content: parsed.reasoning_content,
      ...(parsed.reasoning_content !== null ? { reasoning: parsed.reasoning_content } : {}),
      tool_calls: parsed.tool_calls.map((call) => ({ id: toolCallId(), type: 'function', function: call })),
    };
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [
        {
          index: 0,
          message,
          logprobs: { content: this.logprobEntries(0, this.ids.length) },
          finish_reason: finishReason(piece.finish, parsed.tool_calls.length),
          token_ids: this.ids,
        },
      ],
      usage: this.usage(),
      prompt_token_ids: this.promptIds,
    };
  }

  /** The role chunk a stream opens with, holding the prompt's ids. */
  start(): string {
    return this.event({
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, token_ids: [] }],
      prompt_token_ids: this.promptIds,
    });
  }

  /** The chunks one engine chunk makes: none while its text says nothing yet, then one, then the finish chunk and usage when it ends. */
  push(piece: EnginePiece): string[] {
    this.add(piece);
    const events: string[] = [];
    const delta = this.delta(this.parser.push(this.text.push(piece.ids)));
    if (delta) events.push(this.chunk(delta, null));
    if (piece.finish !== null) {
      const rest = this.text.flush();
      const last = this.delta([...(rest ? this.parser.push(rest) : []), ...this.parser.finish()]);
      if (last) events.push(this.chunk(last, null));
      events.push(this.chunk({}, finishReason(piece.finish, this.toolCallsStreamed)));
      events.push(this.event({ choices: [], usage: this.usage() }));
    }
    return events;
  }

  private add(piece: EnginePiece): void {
    for (const id of piece.ids) this.ids.push(id);
    for (const logprob of piece.logprobs) this.logprobs.push(logprob);
  }

  private chunk(delta: Record<string, unknown>, finish: string | null): string {
    const from = this.carried;
    this.carried = this.ids.length;
    const ids = this.ids.slice(from);
    return this.event({
      choices: [{ index: 0, delta, logprobs: { content: this.logprobEntries(from, this.ids.length) }, finish_reason: finish, token_ids: ids }],
    });
  }

  /** The deltas of one step as one Chat Completions delta; undefined (its ids wait) when they say nothing. */
  private delta(deltas: StreamDelta[]): Record<string, unknown> | undefined {
    const delta = chatDelta(deltas, toolCallId);
    if (Array.isArray(delta?.tool_calls)) this.toolCallsStreamed += delta.tool_calls.length;
    return delta;
  }

  private logprobEntries(from: number, to: number): { token: string; logprob: number; bytes: null; top_logprobs: [] }[] {
    const entries = [];
    for (let i = from; i < to; i++) {
      entries.push({
        token: this.namedLogprobs ? this.family.decode([this.ids[i] as number]) : '',
        logprob: this.logprobs[i] ?? Number.NaN,
        bytes: null,
        top_logprobs: [] as [],
      });
    }
    return entries;
  }

  private usage(): Record<string, number> {
    return { prompt_tokens: this.promptIds.length, completion_tokens: this.ids.length, total_tokens: this.promptIds.length + this.ids.length };
  }

  private event(members: Record<string, unknown>): string {
    return `data: ${JSON.stringify({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, ...members })}\n\n`;
  }
}

function finishReason(finish: EnginePiece['finish'], toolCalls: number): string {
  return finish === 'length' ? 'length' : toolCalls > 0 ? 'tool_calls' : 'stop';
}

function toolCallId(): string {
  return `chatcmpl-tool-${randomBytes(12).toString('hex')}`;
}
