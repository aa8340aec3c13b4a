import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { clientErrorAnswer } from '../util/client-error.js';
import { DEFAULT_MAX_HOLD_SEC } from '../proxy/control/pause-switch.js';
import { UpstreamUnavailableError } from '../rollout/upstream-preflight.js';
import { UserError } from '../util/errors.js';
import { OPENAPI } from './openapi.js';
import type { RolloutService } from './rollout-service.js';
import { bearerMatches, tasksProblem, upstreamProblem, type ServiceAccess } from './access.js';
import { RolloutRequestSchema, type RolloutRequest } from './types.js';

const MAX_WAIT_SEC = 300;

/** Why the request names what this service may not use (`--tasks-root`, `--allow-upstream`), or undefined. */
function requestProblem(request: RolloutRequest, access: ServiceAccess): string | undefined {
  return (
    tasksProblem(request.tasks, access.tasksRoots) ??
    upstreamProblem('upstream', request.upstream, access.allowUpstream) ??
    (request.replicas ?? []).map((url, i) => upstreamProblem(`replicas.${i}`, url, access.allowUpstream)).find((p) => p !== undefined)
  );
}

function error(message: string) {
  return { error: { message } };
}

/** Each wrong field of a request body, named by its path. */
function problems(issues: z.core.$ZodIssue[]): string {
  return issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

/** The rollout service's HTTP API (documented in ./openapi.ts). */
export function buildServiceApp(service: RolloutService, access: ServiceAccess): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, clientErrorHandler: clientErrorAnswer((message) => error(message)) });

  // every route, unknown ones included, but /health
  app.addHook('onRequest', async (req, reply) => {
    if (req.url.split('?')[0] === '/health') return;
    if (bearerMatches(req.headers.authorization, access.token)) return;
    await reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="openforge serve"')
      .send(error("this route needs Authorization: Bearer <the service's token> (the one openforge serve printed, or its --token-file)"));
  });

  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const status =
      err instanceof UpstreamUnavailableError ? 502 : err.statusCode && err.statusCode < 500 ? err.statusCode : err instanceof UserError ? 400 : 500;
    void reply.code(status).send(error(status === 400 && err.name === 'SyntaxError' ? `malformed JSON body: ${err.message}` : err.message));
  });
  app.setNotFoundHandler((req, reply) => void reply.code(404).send(error(`no route ${req.method} ${req.url}; see GET /openapi.json`)));

  app.get('/health', async () => ({ status: 'ok', run_id: service.runId, warm_pool: service.warmPool() }));
  app.get('/openapi.json', async () => OPENAPI);
  app.get('/metrics', async (_req, reply) => {
    const { contentType, text } = await service.metricsExposition();
    return reply.type(contentType).send(text);
  });

  app.post('/v1/rollouts', async (req, reply) => {
    const parsed = RolloutRequestSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      return reply.code(400).send(error(problems(parsed.error.issues)));
    }
    const refused = requestProblem(parsed.data, access);
    if (refused) return reply.code(400).send(error(refused));
    return reply.code(202).send(await service.submit(parsed.data));
  });

  const WaitQuery = z.object({ wait: z.coerce.number().min(0).max(MAX_WAIT_SEC).optional() });
  const RolloutQuery = WaitQuery.extend({ include_stale: z.enum(['true', 'false', '1', '0']).optional() });
  app.get<{ Params: { id: string }; Querystring: unknown }>('/v1/rollouts/:id', async (req, reply) => {
    const query = RolloutQuery.safeParse(req.query);
    if (!query.success) return reply.code(400).send(error(`wait: a number of seconds from 0 to ${MAX_WAIT_SEC}; include_stale: true or false`));
    const includeStale = query.data.include_stale === 'true' || query.data.include_stale === '1';
    const view = await service.view(req.params.id, query.data.wait ?? 0, includeStale);
    if (!view) return reply.code(404).send(error(`no rollout ${req.params.id}`));
    return view;
  });

  app.delete<{ Params: { id: string } }>('/v1/rollouts/:id', async (req, reply) => {
    const cancelled = service.cancel(req.params.id);
    if (cancelled === undefined) return reply.code(404).send(error(`no rollout ${req.params.id}`));
    if (!cancelled) return reply.code(409).send(error(`rollout ${req.params.id} has already ended`));
    return reply.code(202).send({ id: req.params.id, cancelling: true });
  });

  app.get<{ Params: { uid: string }; Querystring: unknown }>('/v1/groups/:uid', async (req, reply) => {
    const query = WaitQuery.safeParse(req.query);
    if (!query.success) return reply.code(400).send(error(`wait: a number of seconds from 0 to ${MAX_WAIT_SEC}`));
    const group = await service.group(req.params.uid, query.data.wait ?? 0);
    if (!group) return reply.code(404).send(error(`no group ${req.params.uid}`));
    return group;
  });

  const PauseFields = {
    retry_after_sec: z.number().min(0).max(3600).optional(),
    mode: z.enum(['refuse', 'hold']).default('refuse'),
    max_hold_sec: z.number().min(1).max(3600).default(DEFAULT_MAX_HOLD_SEC),
  };
  const holdOf = (body: { mode: 'refuse' | 'hold'; max_hold_sec: number }) => (body.mode === 'hold' ? { maxHoldSec: body.max_hold_sec } : undefined);
  const PauseBody = z.strictObject(PauseFields);
  app.post('/v1/proxy/pause', async (req, reply) => {
    const body = PauseBody.safeParse(req.body ?? {});
    if (!body.success) return reply.code(400).send(error(problems(body.error.issues)));
    return service.setPaused(true, body.data.retry_after_sec, holdOf(body.data));
  });
  const ResumeBody = z.strictObject({ weight_version: z.union([z.string().min(1).max(200), z.number()]).optional() });
  app.post('/v1/proxy/resume', async (req, reply) => {
    const body = ResumeBody.safeParse(req.body ?? {});
    if (!body.success) return reply.code(400).send(error(problems(body.error.issues)));
    const version = body.data.weight_version;
    return service.resume(version === undefined ? undefined : String(version));
  });
  const DrainBody = z.strictObject({ timeout_sec: z.number().min(0).max(3600).default(60), ...PauseFields });
  app.post('/v1/proxy/drain', async (req, reply) => {
    const body = DrainBody.safeParse(req.body ?? {});
    if (!body.success) return reply.code(400).send(error(problems(body.error.issues)));
    const state = await service.drain(body.data.timeout_sec, body.data.retry_after_sec, holdOf(body.data));
    if (state.drained) return state;
    const left = `${state.in_flight} model calls still in flight and ${state.pending_records} records unwritten after ${body.data.timeout_sec} s`;
    return reply.code(409).send({ ...state, ...error(`${left}; the proxies stay paused: drain again, or resume`) });
  });
  return app;
}
