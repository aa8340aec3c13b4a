import type { ChildProcess } from 'node:child_process';

/** The URL a spawned `openforge serve` says it listens on (stderr piped), or its exit with what it printed. */
export function serveUrl(server: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let err = '';
    server.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const listening = /openforge serve: (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (listening) resolve(listening[1]!);
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}
