import type { FastifyInstance } from 'fastify';
import type { EnvServerOptions } from './app.js';

/** A number from the environment, or the fallback when unset or not a number. */
export function envNumber(value: string | undefined, fallback: number): number {
  return value && Number.isFinite(Number(value)) ? Number(value) : fallback;
}

/** The kit's settings from the env server's environment (OPENFORGE_VERIFIER_DIR, _EVALUATE_TIMEOUT_MS, _ENV_TOKEN). */
export function envServerOptions(env: NodeJS.ProcessEnv = process.env): EnvServerOptions {
  return {
    verifierDir: env.OPENFORGE_VERIFIER_DIR ?? '/logs/verifier',
    evaluateTimeoutMs: envNumber(env.OPENFORGE_EVALUATE_TIMEOUT_MS, 120_000),
    token: env.OPENFORGE_ENV_TOKEN || undefined,
  };
}

export function logLine(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** Listens on OPENFORGE_ENV_HOST:OPENFORGE_ENV_PORT (0.0.0.0:7000) and closes the app, then the env, on SIGTERM/SIGINT. */
export async function serve(app: FastifyInstance, close: () => unknown, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const port = envNumber(env.OPENFORGE_ENV_PORT, 7000);
  await app.listen({ host: env.OPENFORGE_ENV_HOST ?? '0.0.0.0', port });
  const stop = async () => {
    await app.close().catch(() => undefined);
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  return port;
}
