import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The built CLI (`npm test` builds first), as a user starts it. */
export const CLI = path.resolve('bin/openforge.js');

export interface ProxyCli {
  url: string;
  db: string;
  proc: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
}

/** `openforge proxy <args> --db <db, or a new file> --port 0`, once its banner is printed. */
export async function startProxyCli(args: string[], options: { env?: NodeJS.ProcessEnv; db?: string } = {}): Promise<ProxyCli> {
  const { env = process.env } = options;
  const db = options.db ?? path.join(mkdtempSync(path.join(os.tmpdir(), 'of-proxy-cli-')), 'calls.db');
  const proc = spawn(process.execPath, [CLI, 'proxy', ...args, '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match && out.includes('Ctrl-C to stop')) resolve(match[1]!);
    });
    proc.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) => reject(new Error(`openforge proxy exited with ${code}: ${out}`)));
  });
  return { url, db, proc, output: () => out };
}
