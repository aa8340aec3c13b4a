import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildEnvApp, type EnvServerOptions } from '../../env-server/app.js';
import { DesktopResetSchema, type DesktopHealth } from '../actions.js';
import type { DesktopEnv } from '../desktop-env.js';

export type AppOptions = EnvServerOptions;

const DesktopStepOptionsSchema = z.looseObject({ a11y_tree: z.boolean().optional(), set_of_marks: z.boolean().optional() });

/** The desktop env server's HTTP API (docs/desktop.md): the env server kit with the desktop registered into it. */
export function buildApp(env: DesktopEnv, options: AppOptions): FastifyInstance {
  const on = (v: string | undefined) => v === '1' || v === 'true';
  return buildEnvApp(
    {
      health: async (): Promise<DesktopHealth> => ({ ok: true, display: process.env.DISPLAY ?? '', screen: env.screen }),
      resetSchema: DesktopResetSchema,
      reset: (req) => env.reset(req),
      step: (schema, actions, options) => {
        const extra = DesktopStepOptionsSchema.safeParse(options);
        return env.step(schema, actions, { ...options, ...(extra.success ? extra.data : {}) });
      },
      observation: async (q) => env.observation({ a11y_tree: on(q.a11y_tree) || on(q.aria), set_of_marks: on(q.set_of_marks) }),
      mcp: async () => (await import('./mcp.js')).desktopTools(env),
    },
    options,
  );
}
