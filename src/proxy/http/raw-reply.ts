import type { ServerResponse } from 'node:http';

/** Writes a whole JSON answer on a hijacked response (not if the client is gone); returns the JSON text. */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): string {
  const text = JSON.stringify(body);
  writeBody(res, status, text, Buffer.byteLength(text), headers);
  return text;
}

/** Writes a whole answer that is JSON already, as bytes, on a hijacked response (not if the client is gone). */
export function writeBytes(res: ServerResponse, status: number, json: Buffer): void {
  writeBody(res, status, json, json.length, {});
}

function writeBody(res: ServerResponse, status: number, body: string | Buffer, length: number, headers: Record<string, string>): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    // a held stream: its 200 and event-stream headers are out, so an error goes as the stream's error event
    res.end(`event: error\ndata: ${typeof body === 'string' ? body : body.toString('utf8')}\n\n`);
    return;
  }
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': length,
  });
  res.end(body);
}
