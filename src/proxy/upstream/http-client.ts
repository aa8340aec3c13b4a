import type { Readable } from 'node:stream';
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { UpstreamTimeouts } from '../types.js';
import { UpstreamTimeoutError } from './upstream-timeouts.js';
import type { CallSignal } from '../calls/call-cancel.js';

/** Keep-alive agents shared by every request to the upstreams of one proxy. */
export class UpstreamAgents {
  private readonly http = new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
  private readonly https = new https.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });

  forUrl(url: URL): http.Agent {
    return url.protocol === 'https:' ? this.https : this.http;
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** Text, or bytes in pieces written as one (e.g. slices of the harness's own request). */
  body?: string | readonly Buffer[];
  signal: CallSignal;
}

/**
 * Sends one request and resolves once the response headers arrive; the body is left unread for
 * the caller to stream. Rejects on connection errors, on abort and on the connect and first-byte
 * deadlines; a body that goes silent for `idleMs` is destroyed with an `UpstreamTimeoutError`.
 */
export function sendHttpRequest(agents: UpstreamAgents, request: HttpRequest, timeouts: UpstreamTimeouts): Promise<http.IncomingMessage> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  const transport = request.url.protocol === 'https:' ? https : http;
  const headers: Record<string, string | number> = { ...request.headers };
  const { body } = request;
  if (body !== undefined) headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : byteLengthOf(body);
  const req = transport.request({ ...requestOptionsOf(request.url), method: request.method, headers, agent: agents.forUrl(request.url) });
  // The listeners live until the answer's headers, which for a whole answer is the whole generation:
  // set up where they cannot see `request`, or every call in flight would keep its body (a few KB of
  // string the young-generation GC copies at every pass).
  const answer = responseOf(req, signal, timeouts);
  if (typeof body === 'object') {
    // the pieces wait in the request's output until its socket is assigned, then go out in one writev
    for (const piece of body) req.write(piece);
    req.end();
  } else req.end(body);
  return answer;
}

/** Each upstream URL's request options, worked out once: Node would convert the URL again on every request. */
const optionsOfUrl = new WeakMap<URL, http.RequestOptions>();

function requestOptionsOf(url: URL): http.RequestOptions {
  let options = optionsOfUrl.get(url);
  if (!options) {
    const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
    options = { protocol, hostname, port, path, ...(auth ? { auth } : {}) };
    optionsOfUrl.set(url, options);
  }
  return options;
}

function byteLengthOf(pieces: readonly Buffer[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}

function responseOf(req: http.ClientRequest, signal: CallSignal, timeouts: UpstreamTimeouts): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    // one listener instead of the `signal` request option, which wires up a stream-finished watcher per request
    const onAbort = () => req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));
    let response: http.IncomingMessage | undefined;
    req.once('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => req.destroy(new UpstreamTimeoutError('connect', timeouts.connectMs)), timeouts.connectMs);
      const clear = () => clearTimeout(timer);
      socket.once('connect', clear);
      socket.once('close', clear);
    });
    // Node's request timeout is socket inactivity counted from the connection, and is dropped
    // once the response ends, before the socket goes back to the keep-alive pool.
    req.setTimeout(timeouts.firstByteMs);
    req.on('timeout', () => {
      if (response) response.destroy(new UpstreamTimeoutError('idle', timeouts.idleMs));
      else req.destroy(new UpstreamTimeoutError('first-byte', timeouts.firstByteMs));
    });
    req.once('response', (res) => {
      response = res;
      req.setTimeout(timeouts.idleMs);
      resolve(res);
    });
    req.once('error', reject);
  });
}

/** Reads a response body to text, giving up after `limit` bytes. */
export async function readText(response: Readable, limit = 1 << 20): Promise<string> {
  return (await readBytes(response, limit)).toString('utf8');
}

/**
 * Reads a response body, giving up after `limit` bytes. Plain 'data' events: an async iterator
 * costs a promise and a stream watcher per chunk, on the path of every non-streamed call.
 */
export function readBytes(response: Readable, limit = 1 << 20): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (part: Buffer) => {
      size += part.length;
      if (size > limit) {
        cleanup();
        response.destroy();
        reject(new Error(`upstream response larger than ${limit} bytes`));
        return;
      }
      parts.push(part);
    };
    const onEnd = () => {
      cleanup();
      resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    // a body destroyed before its end (timeout, abort) ends in 'close' without 'end' or 'error'
    const onClose = () => {
      cleanup();
      reject(response.errored ?? new Error('upstream response closed before its end'));
    };
    const cleanup = () => {
      response.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    response.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
