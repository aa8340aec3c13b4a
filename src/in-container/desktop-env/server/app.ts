import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { clientErrorAnswer } from '../../../util/client-error.js';
import { StepRequestSchema } from '../../browser-env/actions.js';
import { EvaluatorError, evaluate } from '../../browser-env/server/evaluate.js';
import { DesktopResetSchema, type DesktopHealth } from '../actions.js';
import type { DesktopEnv } from '../desktop-env.js';

export interface AppOptions {
  verifierDir: string;
  evaluateTimeoutMs: number;
  /** Asked of every request but /health as `Authorization: Bearer <token>` (the rollout's env token). */
  token?: string;
}

const EvaluateRequestSchema = z.looseObject({ command: z.string().min(1).optional() });
const DesktopStepOptionsSchema = z.looseObject({ a11y_tree: z.boolean().optional() });

function badRequest(error: z.ZodError): { error: string } {
  const issue = error.issues[0];
  return { error: `invalid request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` };
}

/** The desktop env server's HTTP API (docs/desktop.md), the browser env's contract: /health, /reset, /step, /observation, /evaluate, /mcp. */
export function buildApp(env: DesktopEnv, options: AppOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024, clientErrorHandler: clientErrorAnswer((message) => ({ error: message })) });
  if (options.token) {
    const expected = Buffer.from(`Bearer ${options.token}`);
    app.addHook('onRequest', async (req, reply) => {
      if (req.url === '/health') return;
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reply
          .code(401)
          .send({ error: "this env server answers its rollout only: send Authorization: Bearer <the rollout's env token> (OPENFORGE_ENV_TOKEN)" });
      }
    });
  }

  app.get('/health', async (): Promise<DesktopHealth> => ({ ok: true, display: process.env.DISPLAY ?? '', screen: env.screen }));

  app.post('/reset', async (req, reply) => {
    const parsed = DesktopResetSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(badRequest(parsed.error));
    return env.reset(parsed.data);
  });

  app.post('/step', async (req, reply) => {
    const parsed = StepRequestSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(badRequest(parsed.error));
    const { schema, action, actions, options } = parsed.data;
    const list = actions ?? (action !== undefined ? [action] : undefined);
    if (!list) return reply.code(400).send({ error: 'invalid request: send "action" (one) or "actions" (a list)' });
    const extra = DesktopStepOptionsSchema.safeParse(options ?? {});
    return env.step(schema ?? 'canonical', list, { ...(options ?? {}), ...(extra.success ? extra.data : {}) });
  });

  app.get('/observation', async (req) => {
    const q = req.query as Record<string, string | undefined>;
    const on = (v: string | undefined) => v === '1' || v === 'true';
    return env.observation({ a11y_tree: on(q.a11y_tree) || on(q.aria) });
  });

  app.post('/evaluate', async (req, reply) => {
    const parsed = EvaluateRequestSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(badRequest(parsed.error));
    try {
      return await evaluate(parsed.data.command ?? 'bash /tests/test.sh', options.verifierDir, options.evaluateTimeoutMs);
    } catch (err) {
      if (!(err instanceof EvaluatorError)) throw err;
      return reply.code(422).send({ error: err.message, stdout: err.stdout, stderr: err.stderr });
    }
  });

  app.all('/mcp', async (req, reply) => {
    reply.hijack();
    const { handleMcp } = await import('./mcp.js');
    await handleMcp(env, req.raw, reply.raw, req.body);
  });

  app.setErrorHandler((err, _req, reply) => {
    const e = err as Error & { statusCode?: number };
    const status = e.statusCode && e.statusCode < 500 ? e.statusCode : 500;
    void reply.code(status).send({ error: e.message });
  });
  return app;
}
