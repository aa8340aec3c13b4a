import type { FastifyInstance } from 'fastify';
import { openAIErrorBody } from './http-error.js';

/**
 * Answers every WebSocket upgrade, on any path, with 426 and closes the connection. Newer Codex
 * opens a WebSocket on /v1/responses before it POSTs; on 426 it falls back to HTTP at once, while
 * a 404 makes it retry the WebSocket about seven times (≈ 7 s per turn) first.
 *
 * A hook rather than a server 'upgrade' listener: with no listener, Node hands upgrade requests to
 * the ordinary request handler, which every bound host shares, so one hook covers them all.
 */
export function refuseWebSocketUpgrades(app: FastifyInstance): void {
  // callback style: every request passes here, and an async hook would cost each one a promise
  app.addHook('onRequest', (request, reply, done) => {
    const upgrade = request.headers.upgrade;
    if (typeof upgrade !== 'string' || upgrade.toLowerCase() !== 'websocket') {
      done();
      return;
    }
    const message = 'the proxy serves no WebSockets: send the request as an HTTP POST (server-sent events for streams)';
    // answered here, so `done` is not called: fastify runs nothing more for this request
    reply
      .code(426)
      .header('connection', 'close')
      .send(openAIErrorBody(message, 'invalid_request_error', 'websocket_not_supported'));
  });
}
