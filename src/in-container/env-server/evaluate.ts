import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { EvaluateResponse } from '../browser-env/actions.js';

const MAX_OUTPUT = 64 * 1024;

/**
 * Runs a task's evaluator and reads its reward the Harbor way (the verifier phase's contract):
 * `<verifierDir>/reward.txt` (a number) or `reward.json` (`{reward, ...details}`).
 */
export async function evaluate(command: string, verifierDir: string, timeoutMs: number): Promise<EvaluateResponse> {
  const txt = path.join(verifierDir, 'reward.txt');
  const json = path.join(verifierDir, 'reward.json');
  rmSync(txt, { force: true });
  rmSync(json, { force: true });
  const { stdout, stderr, code } = await run(command, timeoutMs);
  if (existsSync(json)) {
    const parsed = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
    const reward = Number(parsed.reward);
    if (!Number.isFinite(reward)) throw new EvaluatorError(`${json} has no numeric "reward"`, stdout, stderr);
    return { reward, details: parsed, stdout, stderr };
  }
  if (existsSync(txt)) {
    const reward = Number(readFileSync(txt, 'utf8').trim());
    if (!Number.isFinite(reward)) throw new EvaluatorError(`${txt} does not hold a number`, stdout, stderr);
    return { reward, stdout, stderr };
  }
  throw new EvaluatorError(`the evaluator (exit ${code}) wrote neither ${txt} nor ${json}`, stdout, stderr);
}

export class EvaluatorError extends Error {
  constructor(
    message: string,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

function run(command: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-MAX_OUTPUT)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-MAX_OUTPUT)));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // its own process group: the evaluator and its children
      } catch {
        /* gone already */
      }
      stderr += `\nevaluator killed after ${timeoutMs} ms`;
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ stdout, stderr: `${stderr}${err.message}`, code: null });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}
