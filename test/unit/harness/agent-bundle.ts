// Runs a built-in agent's bundle (dist/agents/<name>.mjs) as a container does: copied alone into a
// folder with no node_modules, started with a bare environment.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface AgentExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Copies `dist/agents/<name>.mjs` (built by `npm run build`, npm test's pretest) to a new temporary folder. */
export function copyAgentBundle(name: string): string {
  const built = path.resolve(import.meta.dirname, '../../../dist/agents', `${name}.mjs`);
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  const copy = path.join(mkdtempSync(path.join(tmpdir(), `${name}-bundle-`)), `${name}.mjs`);
  copyFileSync(built, copy);
  return copy;
}

/** Runs `bundle` with `args` and only PATH and `env` in its environment. FORGE_AGENT_NODE picks another node (e.g. a Node 18 wrapper). */
export function runAgentBundle(bundle: string, args: string[], env: Record<string, string>): Promise<AgentExit> {
  return new Promise((resolve) => {
    const child = spawn(process.env.FORGE_AGENT_NODE ?? process.execPath, [bundle, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
