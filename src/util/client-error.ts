import http from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser reports, in words a user can act on. */
function describe(err: NodeJS.ErrnoException): { status: number; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `the request's headers are larger than this server accepts (${http.maxHeaderSize} bytes)` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request was not received in time' };
    case 'HPE_INVALID_HEADER_TOKEN':
      return {
        status: 400,
        message: `a request header holds a character HTTP does not allow (${err.message}): look for a line break or control character in a header, e.g. an API key pasted with its newline`,
      };
    default:
      return { status: 400, message: `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'}: ${err.message})` };
  }
}

/** A server's error body for a request its HTTP parser refused. */
export type ClientErrorBody = (message: string, status: number) => unknown;

/**
 * A `clientError` listener (and fastify's `clientErrorHandler`) that answers what Node's HTTP parser
 * refused before any route ran (a broken request line, a newline in a header, headers too large) with
 * the server's own error body naming the problem, where Node and fastify answer a bare "Bad Request".
 * The connection is closed: after a framing error nothing more on it can be read.
 */
export function clientErrorAnswer(errorBody: ClientErrorBody): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = describe(err);
    const body = JSON.stringify(errorBody(message, status));
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
