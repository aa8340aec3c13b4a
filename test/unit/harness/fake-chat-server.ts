// Test fake: a scripted OpenAI Chat Completions server on 127.0.0.1.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeToolCall {
  id: string;
  name: string;
  /** Sent verbatim; in streaming mode split into `fragments` pieces. */
  arguments: string;
}

export type FakeReply = { content?: string | null; toolCalls?: FakeToolCall[] } | { status: number; body: string; headers?: Record<string, string> };

export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    stream?: boolean;
    temperature?: number;
    tools: { function: { name: string } }[];
    messages: {
      role: string;
      content: string | null;
      tool_call_id?: string;
      tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
    }[];
  };
}

export interface FakeServerOptions {
  /** End SSE lines with \r\n instead of \n. */
  crlf?: boolean;
  /** End a stream right after its last chunk's data line: no blank line after it, no [DONE]. */
  abruptEnd?: boolean;
}

export interface FakeChatServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Splits a string into roughly `n` pieces (at least one character each). */
function split(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

function sseChunks(reply: { content?: string | null; toolCalls?: FakeToolCall[] }): string[] {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = [chunk({ role: 'assistant', content: null })];
  for (const piece of split(reply.content ?? '', 3)) events.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of split(call.arguments, 4)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop'));
  events.push(': keep-alive comment\n\n', 'data: [DONE]\n\n');
  return events;
}

/**
 * `script(n, request)` gives the reply to the n-th request (0-based). Streaming
 * replies are written in pieces cut across SSE event boundaries, with pauses,
 * so the client sees events split over several reads.
 */
export async function startFakeChatServer(
  script: (n: number, request: RecordedRequest) => FakeReply,
  options: FakeServerOptions = {},
): Promise<FakeChatServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (b: Buffer) => (raw += b.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        const recorded: RecordedRequest = { headers: req.headers, body: JSON.parse(raw) as RecordedRequest['body'] };
        requests.push(recorded);
        if (req.url !== '/v1/chat/completions') {
          res.writeHead(404).end('not found');
          return;
        }
        const reply = script(requests.length - 1, recorded);
        if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body);
          return;
        }
        if (!recorded.body.stream) {
          const message: Record<string, unknown> = { role: 'assistant', content: reply.content ?? null };
          if (reply.toolCalls?.length) {
            message.tool_calls = reply.toolCalls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: c.arguments },
            }));
          }
          const finish = reply.toolCalls?.length ? 'tool_calls' : 'stop';
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }] }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const events = sseChunks(reply);
        const lf = options.abruptEnd ? events.slice(0, -2).join('').replace(/\n\n$/, '') : events.join('');
        const text = options.crlf ? lf.replace(/\n/g, '\r\n') : lf;
        for (const piece of split(text, 7)) {
          res.write(piece);
          await sleep(5);
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
