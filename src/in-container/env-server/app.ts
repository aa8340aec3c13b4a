import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { clientErrorAnswer } from '../../util/client-error.js';
import { type ActionSchemaName, StepRequestSchema, type StepOptions } from '../browser-env/actions.js';
import { EvaluatorError, evaluate } from './evaluate.js';
import type { McpTools } from './mcp.js';

export interface EnvServerOptions {
  verifierDir: string;
  evaluateTimeoutMs: number;
  /**
   * Asked of every request but /health, as `Authorization: Bearer <token>`: the orchestrator gives each
   * rollout's env server a token of its own, and its agent the same. Unset: every request is answered.
   */
  token?: string;
}

/** What one environment (the browser, the desktop) registers into the env server kit. */
export interface EnvServerSpec<Reset> {
  health(): Promise<unknown>;
  resetSchema: z.ZodType<Reset>;
  reset(req: Reset): Promise<unknown>;
  /** Actions in `schema`'s vocabulary; `options` is the request's (the env reads the keys it knows). */
  step(schema: ActionSchemaName, actions: unknown[], options: StepOptions & Record<string, unknown>): Promise<unknown>;
  observation(query: Record<string, string | undefined>): Promise<unknown>;
  /** The env's MCP tools, loaded on the first /mcp request (the MCP SDK adds seconds to a start on a busy machine). */
  mcp(): Promise<McpTools>;
}

const EvaluateRequestSchema = z.looseObject({ command: z.string().min(1).optional() });

function badRequest(error: z.ZodError): { error: string } {
  const issue = error.issues[0];
  return { error: `invalid request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` };
}

/**
 * An env server's HTTP API, the contract every GUI environment keeps (docs/browser.md, docs/desktop.md):
 * /health, /reset, /step, /observation, /evaluate and MCP at /mcp, behind the rollout's token.
 */
export function buildEnvApp<Reset>(spec: EnvServerSpec<Reset>, options: EnvServerOptions): FastifyInstance {
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

  app.get('/health', () => spec.health());

  app.post('/reset', async (req, reply) => {
    const parsed = spec.resetSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(badRequest(parsed.error));
    return spec.reset(parsed.data);
  });

  app.post('/step', async (req, reply) => {
    const parsed = StepRequestSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(badRequest(parsed.error));
    const { schema, action, actions, options } = parsed.data;
    const list = actions ?? (action !== undefined ? [action] : undefined);
    if (!list) return reply.code(400).send({ error: 'invalid request: send "action" (one) or "actions" (a list)' });
    return spec.step(schema ?? 'canonical', list, options ?? {});
  });

  app.get('/observation', (req) => spec.observation(req.query as Record<string, string | undefined>));

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
    const [{ handleMcp }, tools] = await Promise.all([import('./mcp.js'), spec.mcp()]);
    await handleMcp(tools, req.raw, reply.raw, req.body);
  });

  app.setErrorHandler((err, _req, reply) => {
    const e = err as Error & { statusCode?: number };
    const status = e.statusCode && e.statusCode < 500 ? e.statusCode : 500;
    void reply.code(status).send({ error: e.message });
  });
  return app;
}
