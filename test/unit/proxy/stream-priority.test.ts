import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readStreamedAnswer } from '../../../src/engine-wire/streamed-answer.js';
import type { CapturedTokens } from '../../../src/engine-wire/token-capture.js';
import { answerStream } from '../../../src/proxy/calls/answer-stream.js';
import type { CallOutcome } from '../../../src/proxy/calls/call-outcome.js';
import { chatProtocol } from '../../../src/proxy/protocols/chat/protocol.js';
import type { PreparedCall } from '../../../src/proxy/protocols/types.js';

// The relay's order between streams is decided within one turn of the event loop, which real sockets
// do not let a test arrange: here the upstream bodies are emitters whose reads the test fires itself,
// and the harness's responses record what is written to them, in one log shared by every stream.

class UpstreamBody extends EventEmitter {
  readableEnded = false;
  pause(): void {}
  resume(): void {}
  destroy(): void {}
  read(...events: string[]): void {
    this.emit('data', Buffer.from(events.map((data) => `data: ${data}\n\n`).join('')));
  }
  finish(): void {
    this.readableEnded = true;
    this.emit('end');
  }
}

class RecordingResponse extends EventEmitter {
  writableEnded = false;
  destroyed = false;
  constructor(
    private readonly name: string,
    private readonly log: string[],
  ) {
    super();
  }
  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(text: string): boolean {
    for (const event of text.split('\n\n').filter(Boolean)) this.log.push(`${this.name} ${shortly(event)}`);
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
}

/** `data: {…"content":"two"…}` → `two`; `[DONE]` and errors as they are. */
function shortly(event: string): string {
  const data = event.replace(/^data: /, '');
  if (data === '[DONE]') return data;
  const body = JSON.parse(data) as { error?: { message: string }; choices?: { delta: { role?: string; content?: string } }[] };
  if (body.error) return `error: ${body.error.message}`;
  const delta = body.choices?.[0]?.delta;
  return delta?.role ? 'role' : (delta?.content ?? '?');
}

const ROLE = JSON.stringify({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { role: 'assistant', content: '' }, token_ids: [] }],
  prompt_token_ids: [1, 2],
});
const token = (text: string, id: number, finish: string | null = null) =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text }, finish_reason: finish, token_ids: [id] }] });

/** How the relay reads the upstream's events: cut from their text (Chat Completions), or parsed (every other protocol's way). */
type Way = 'cut' | 'parsed';

function streamingCall(way: Way): PreparedCall {
  const call = chatProtocol.endpoints[0]!.prepare({ model: 'policy', messages: [{ role: 'user', content: 'hi' }], stream: true }) as PreparedCall;
  return way === 'cut' ? call : { ...call, streamCut: undefined };
}

/** The tokens and response as the record has them (read from the upstream's bytes when the events were cut). */
function recorded(outcome: CallOutcome): { tokens: CapturedTokens; response: unknown } {
  if (outcome.streamedAnswer === undefined) return { tokens: outcome.tokens as CapturedTokens, response: outcome.response };
  return readStreamedAnswer(outcome.streamedAnswer);
}

function relay(way: Way, name: string, log: string[]) {
  const body = new UpstreamBody();
  const res = new RecordingResponse(name, log);
  const outcome = answerStream(
    streamingCall(way),
    { url: 'http://upstream.test', response: body as unknown as IncomingMessage },
    res as unknown as ServerResponse,
    new AbortController().signal,
    60_000,
    () => 0,
  );
  return { body, outcome };
}

describe.each(['cut', 'parsed'] as const)('stream relay order between streams, events %s', (way) => {
  it('relays a stream’s first token at once and holds the next tokens of streams under way until the loop’s I/O is done', async () => {
    const log: string[] = [];
    const a = relay(way, 'A', log);
    a.body.read(ROLE, token('one', 11));
    expect(log).toEqual(['A role', 'A one']);

    // in one turn of the loop: A's next token, then another stream's first
    const b = relay(way, 'B', log);
    a.body.read(token('two', 12));
    b.body.read(ROLE);
    b.body.read(token('hi', 21));
    expect(log).toEqual(['A role', 'A one', 'B role', 'B hi']);

    await nextLoopTurn();
    expect(log).toEqual(['A role', 'A one', 'B role', 'B hi', 'A two']);

    a.body.read(token('three', 13, 'stop'), '[DONE]');
    b.body.read(token('!', 22, 'stop'), '[DONE]');
    await nextLoopTurn();
    a.body.finish();
    b.body.finish();
    const [outcomeA, outcomeB] = await Promise.all([a.outcome, b.outcome]);
    expect(log.filter((line) => line.startsWith('A'))).toEqual(['A role', 'A one', 'A two', 'A three', 'A [DONE]']);
    expect(log.filter((line) => line.startsWith('B'))).toEqual(['B role', 'B hi', 'B !', 'B [DONE]']);
    expect(recorded(outcomeA).tokens.completionTokenIds).toEqual([11, 12, 13]);
    expect(recorded(outcomeB).tokens.completionTokenIds).toEqual([21, 22]);
    expect(outcomeA.error).toBeNull();
  });

  it('relays the tokens held back before the end of the stream when the end comes in the same turn', async () => {
    const log: string[] = [];
    const a = relay(way, 'A', log);
    a.body.read(ROLE, token('one', 11));
    a.body.read(token('two', 12));
    a.body.read(token('three', 13, 'stop'), '[DONE]');
    a.body.finish();
    const outcome = await a.outcome;
    expect(log).toEqual(['A role', 'A one', 'A two', 'A three', 'A [DONE]']);
    expect(recorded(outcome).tokens.completionTokenIds).toEqual([11, 12, 13]);
    expect(recorded(outcome).response).toMatchObject({ choices: [{ message: { content: 'onetwothree' }, finish_reason: 'stop' }] });
  });

  it('relays the tokens held back before the error event when the upstream fails in the same turn', async () => {
    const log: string[] = [];
    const a = relay(way, 'A', log);
    a.body.read(ROLE, token('one', 11));
    a.body.read(token('two', 12));
    a.body.emit('error', new Error('connection reset'));
    const outcome = await a.outcome;
    expect(log).toEqual(['A role', 'A one', 'A two', 'A error: upstream stream failed: connection reset']);
    expect(outcome.error).toBe('upstream stream failed: connection reset');
    expect(recorded(outcome).tokens.completionTokenIds).toEqual([11, 12]);
  });
});
