import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseWriter } from '../../../src/proxy/http/sse-writer.js';

const KEEPALIVE = ': keepalive\n\n';

/** A real server whose one response is driven by `drive`; resolves with what the client read, and when. */
async function serve(drive: (writer: SseWriter) => Promise<void>, keepaliveMs: number): Promise<{ text: string; arrivals: { at: number; text: string }[] }> {
  const server = http.createServer((_req, res) => {
    const writer = new SseWriter(res, keepaliveMs);
    void drive(writer).then(() => writer.end());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const arrivals: { at: number; text: string }[] = [];
    http
      .get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (text: string) => arrivals.push({ at: performance.now() - started, text }));
        res.on('end', () => resolve({ text: arrivals.map((a) => a.text).join(''), arrivals }));
      })
      .on('error', reject);
  });
}

const servers: http.Server[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SseWriter keepalives', () => {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('sends none while the upstream keeps speaking, then one per period of silence', async () => {
    const { text, arrivals } = await serve(async (writer) => {
      // the upstream speaks every 10 ms for 600 ms, four keepalive periods
      for (let i = 0; i < 60; i++) {
        writer.heardUpstream();
        writer.writeNow([{ data: `{"n":${i}}` }]);
        await sleep(10);
      }
      await sleep(520);
      writer.writeNow([{ data: '[DONE]' }]);
    }, 150);
    const lastEvent = text.indexOf('{"n":59}');
    expect(lastEvent).toBeGreaterThan(0);
    expect(text.slice(0, lastEvent)).not.toContain(KEEPALIVE);
    const silence = text.slice(lastEvent);
    const count = silence.split(KEEPALIVE).length - 1;
    // 520 ms of silence at 150 ms a period: three, give or take a timer's lateness
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThanOrEqual(4);
    // the first one waited a whole period after the last event
    const lastEventAt = arrivals.find((a) => a.text.includes('{"n":59}'))!.at;
    const firstKeepaliveAt = arrivals.find((a) => a.at > lastEventAt && a.text.includes(KEEPALIVE))!.at;
    expect(firstKeepaliveAt - lastEventAt).toBeGreaterThanOrEqual(140);
  });

  it('sends a keepalive after a period of silence from the start', async () => {
    const { text } = await serve(async (writer) => {
      await sleep(260);
      writer.writeNow([{ data: '[DONE]' }]);
    }, 100);
    expect(text.startsWith(KEEPALIVE)).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
