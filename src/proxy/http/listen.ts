import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientError } from './http-error.js';

/** Node server options matching fastify's defaults for long-lived keep-alive clients. */
const SERVER_OPTIONS: http.ServerOptions = { keepAliveTimeout: 72_000, requestTimeout: 0, noDelay: true };

/**
 * The servers behind one fastify instance. Fastify listens on one address per instance, so the
 * proxy gives it a `serverFactory` that keeps the request handler, and binds one extra Node server
 * with that same handler for every further host, all on the same port.
 */
export class MultiHostServers {
  private handler: http.RequestListener | undefined;
  private readonly servers: http.Server[] = [];

  /** Pass as fastify's `serverFactory`; it creates the primary server. */
  readonly factory = (handler: http.RequestListener): http.Server => {
    this.handler = handler;
    const server = http.createServer(SERVER_OPTIONS, handler);
    this.servers.push(server);
    return server;
  };

  /** Binds further hosts on the port the primary server got. */
  async listenExtra(hosts: string[], port: number): Promise<void> {
    const handler = this.handler;
    if (!handler) throw new Error('fastify has not created its server yet');
    for (const host of hosts) {
      const server = http.createServer(SERVER_OPTIONS, handler);
      // fastify answers its own server's parse errors (`clientErrorHandler`); these are the proxy's
      server.on('clientError', answerClientError);
      this.servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    }
  }

  port(): number {
    const address = this.servers[0]?.address() as AddressInfo | null;
    if (!address) throw new Error('the proxy is not listening');
    return address.port;
  }

  /** Stops the extra servers (fastify closes the primary one). */
  async closeExtra(): Promise<void> {
    await Promise.all(this.servers.slice(1).map(closeGracefully));
  }

  /** Cuts every connection still open, idle or not (fresh keep-alive sockets never count as idle). */
  closeAllConnections(): void {
    for (const server of this.servers) server.closeAllConnections();
  }
}

function closeGracefully(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
