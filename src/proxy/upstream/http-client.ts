import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, errors } from 'undici';
import type { UpstreamTimeouts } from '../types.js';
import { UpstreamTimeoutError } from './upstream-timeouts.js';

/** An upstream's answer, its body not yet read. */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  /** The silence allowed between body chunks (see `bodyError`). */
  idleMs: number;
}

/**
 * The keep-alive connections to the upstreams of one proxy (undici: about half the CPU of node:http
 * per request, which is on the path of every call).
 */
export class UpstreamAgents {
  private readonly agent: Agent;

  constructor(private readonly timeouts: UpstreamTimeouts) {
    this.agent = new Agent({ connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.firstByteMs, bodyTimeout: timeouts.idleMs });
  }

  /**
   * Sends one request and resolves once the response headers arrive; the body is left unread for
   * the caller to stream. Rejects on connection errors, on abort and on the connect and first-byte
   * deadlines (as `UpstreamTimeoutError`); a body that goes silent for `idleMs` fails (see `bodyError`).
   */
  async send(request: HttpRequest): Promise<UpstreamResponse> {
    const { signal } = request;
    if (signal.aborted) throw signal.reason;
    try {
      const { statusCode, headers, body } = await this.agent.request({
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal,
      });
      return { statusCode, headers, body, idleMs: this.timeouts.idleMs };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (err instanceof errors.ConnectTimeoutError) throw new UpstreamTimeoutError('connect', this.timeouts.connectMs);
      if (err instanceof errors.HeadersTimeoutError) throw new UpstreamTimeoutError('first-byte', this.timeouts.firstByteMs);
      throw err;
    }
  }

  close(): Promise<void> {
    return this.agent.destroy();
  }
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** What a failed read of an upstream body means: an `UpstreamTimeoutError` when it went silent. */
export function bodyError(response: UpstreamResponse, err: unknown): unknown {
  return err instanceof errors.BodyTimeoutError ? new UpstreamTimeoutError('idle', response.idleMs) : err;
}

/**
 * Reads a response body to text, giving up after `limit` bytes. Plain 'data' events: an async
 * iterator costs a promise and a stream watcher per chunk, on the path of every non-streamed call.
 */
export function readText(response: UpstreamResponse, limit = 1 << 20): Promise<string> {
  const { body } = response;
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (part: Buffer) => {
      size += part.length;
      if (size > limit) {
        cleanup();
        body.destroy();
        reject(new Error(`upstream response larger than ${limit} bytes`));
        return;
      }
      parts.push(part);
    };
    const onEnd = () => {
      cleanup();
      resolve(parts.length === 1 ? (parts[0] as Buffer).toString('utf8') : Buffer.concat(parts, size).toString('utf8'));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(bodyError(response, err));
    };
    // a body destroyed before its end (abort) ends in 'close' without 'end' or 'error'
    const onClose = () => {
      cleanup();
      reject(bodyError(response, body.errored ?? new Error('upstream response closed before its end')));
    };
    const cleanup = () => {
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
