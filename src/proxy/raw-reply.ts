import type { ServerResponse } from 'node:http';

/** Writes a whole JSON answer on a hijacked response (not if the client is gone); returns the JSON text. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): string {
  const text = JSON.stringify(body);
  if (res.writableEnded || res.destroyed) return text;
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
  return text;
}
