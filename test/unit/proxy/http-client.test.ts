import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamAgents, readText, sendHttpRequest } from '../../../src/proxy/upstream/http-client.js';
import { DEFAULT_UPSTREAM_TIMEOUTS } from '../../../src/proxy/upstream/upstream-timeouts.js';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** An upstream that tells what it was asked, on `host`. */
async function startEchoUpstream(host: string) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const seen: Seen = { method: req.method, url: req.url, authorization: req.headers.authorization, body };
      res.end(JSON.stringify(seen));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe("the proxy's upstream requests", () => {
  const agents = new UpstreamAgents();
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    agents.destroy();
  });

  async function ask(url: URL, body?: string): Promise<Seen> {
    const signal = new AbortController().signal;
    const response = await sendHttpRequest(agents, { method: body === undefined ? 'GET' : 'POST', url, headers: {}, body, signal }, DEFAULT_UPSTREAM_TIMEOUTS);
    return JSON.parse(await readText(response)) as Seen;
  }

  it('reach an IPv6 upstream at its path and query, the same way every time a URL is reused', async () => {
    const { server, port } = await startEchoUpstream('::1');
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const url = new URL(`http://[::1]:${port}/v1/chat/completions?api-version=1`);
    for (const body of ['{"n":1}', '{"n":2}']) {
      expect(await ask(url, body)).toEqual({ method: 'POST', url: '/v1/chat/completions?api-version=1', body });
    }
  });

  it('send the credentials written in the upstream URL as basic authentication', async () => {
    const { server, port } = await startEchoUpstream('127.0.0.1');
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const seen = await ask(new URL(`http://user:secret@127.0.0.1:${port}/v1/models`));
    expect(seen.url).toBe('/v1/models');
    expect(seen.authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
  });
});
