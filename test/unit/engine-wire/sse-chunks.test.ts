import { describe, expect, it } from 'vitest';
import { STREAM_DONE, UpstreamChunkParser } from '../../../src/engine-wire/sse-chunks.js';

type Seen = unknown[];

function feedAll(parts: Buffer[]): Seen {
  const parser = new UpstreamChunkParser();
  const seen: Seen = [];
  for (const part of parts) parser.feed(part, (chunk) => seen.push(chunk === STREAM_DONE ? 'DONE' : chunk));
  return seen;
}

const chunk = (content: string) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, token_ids: [7] }] });
const sse = (...events: unknown[]) => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');

describe('UpstreamChunkParser', () => {
  it('hands over each event once, in order, however the bytes are split, a character split across reads included', () => {
    const text = sse(chunk('naïve → café'), chunk('日本語'), chunk('🙂 done'), '[DONE]');
    const bytes = Buffer.from(text, 'utf8');
    const whole = feedAll([bytes]);
    expect(whole).toEqual([chunk('naïve → café'), chunk('日本語'), chunk('🙂 done'), 'DONE']);
    // every split point, one byte at a time as well
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(feedAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(whole);
    }
    expect(feedAll([...bytes].map((b) => Buffer.from([b])))).toEqual(whole);
  });

  it('ignores a byte order mark opening the stream, even when it arrives byte by byte', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sse(chunk('hi'), '[DONE]'))]);
    expect(feedAll([bytes])).toEqual([chunk('hi'), 'DONE']);
    expect(feedAll([bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)])).toEqual([chunk('hi'), 'DONE']);
  });

  it('keeps a U+FEFF inside the stream: only one opening it is dropped', () => {
    expect(feedAll([Buffer.from(sse(chunk('\uFEFFword')))])).toEqual([chunk('\uFEFFword')]);
  });

  it('hands over nothing after [DONE]', () => {
    expect(feedAll([Buffer.from(sse(chunk('a'), '[DONE]', chunk('late')))])).toEqual([chunk('a'), 'DONE']);
  });

  it('throws on an event that is not a JSON object, naming it, after the events before it', () => {
    const parser = new UpstreamChunkParser();
    const seen: Seen = [];
    expect(() => parser.feed(Buffer.from(sse(chunk('a'), 'not json')), (c) => seen.push(c))).toThrow(/not JSON: not json/);
    expect(seen).toEqual([chunk('a')]);
    expect(() => new UpstreamChunkParser().feed(Buffer.from(sse('[1,2]')), () => undefined)).toThrow(/not a JSON object: \[1,2\]/);
  });
});
