import type { FastifyInstance } from 'fastify';
import { buildEnvApp, type EnvServerOptions } from '../../env-server/app.js';
import { type HealthResponse, ResetRequestSchema } from '../actions.js';
import type { BrowserEnv } from './browser-env.js';

export type AppOptions = EnvServerOptions;

/** The browser env server's HTTP API (docs/browser.md): the env server kit with the browser registered into it. */
export function buildApp(env: BrowserEnv, options: AppOptions): FastifyInstance {
  return buildEnvApp(
    {
      health: async (): Promise<HealthResponse> => {
        const up = env.host.running || !!(await env.host.get().catch(() => undefined));
        return { ok: up, browser: env.host.restarts > 0 ? 'restarted' : 'running', restarts: env.host.restarts };
      },
      resetSchema: ResetRequestSchema,
      reset: (req) => env.reset(req),
      step: (schema, actions, options) => env.step(schema, actions, options),
      observation: async (q) => env.observation({ aria: q.aria === '1' || q.aria === 'true', image_format: q.image_format === 'jpeg' ? 'jpeg' : 'png' }),
      mcp: async () => (await import('./mcp.js')).browserTools(env),
    },
    options,
  );
}
