import type { FastifyInstance, FastifyRequest } from 'fastify';
import { controlAuthHook, type ControlAccessRule } from '../auth/control-auth.js';
import { ProxyHttpError } from '../http/http-error.js';
import { DEFAULT_DRAIN_TIMEOUT_SEC, DEFAULT_RETRY_AFTER_SEC, type HoldOptions, type ProxyControl } from './proxy-control.js';
import { DEFAULT_MAX_HOLD_SEC } from './pause-switch.js';
import type { ProxyMetrics } from './proxy-metrics.js';
import type { RolloutGrades, SessionFactory } from '../types.js';

export interface ControlDeps {
  access: ControlAccessRule;
  control: ProxyControl;
  metrics: ProxyMetrics;
  sessionFactory: SessionFactory | undefined;
  grades: RolloutGrades | undefined;
  /** The proxy's own base URL, for session URLs when a request has no Host header. */
  baseUrl: () => string;
}

const ROLLOUT_ID = /^[A-Za-z0-9._:@-]{1,200}$/;

/**
 * GET /metrics (Prometheus's text format), under the control routes' rule: Prometheus scrapes it
 * with the admin token as its bearer token, or from the proxy's own host when it has none.
 * /control/*: pause and resume model calls around a weight update, drain in-flight calls, read
 * the state; on standalone proxies, create sessions and take their rollouts' rewards. Never under
 * /s/<secret>, never with a session secret (see `controlDenial`).
 */
export function registerControlRoutes(app: FastifyInstance, deps: ControlDeps): void {
  app.get('/metrics', { onRequest: controlAuthHook(deps.access) }, async (_request, reply) => {
    const { contentType, text } = await deps.metrics.exposition();
    return reply.type(contentType).send(text);
  });
  void app.register(
    async (control) => {
      control.addHook('onRequest', controlAuthHook(deps.access));

      control.get('/status', async () => deps.control.status());

      control.post('/pause', async (request) =>
        deps.control.pause(numberParam(request, 'retry_after_sec', DEFAULT_RETRY_AFTER_SEC, 0, 3_600, true), holdParam(request)),
      );

      control.post('/resume', async (request) => deps.control.resume(weightVersionParam(request)));

      control.post('/drain', async (request, reply) => {
        const timeoutSec = numberParam(request, 'timeout_sec', DEFAULT_DRAIN_TIMEOUT_SEC, 0, 3_600, false);
        const retryAfterSec = optionalNumberParam(request, 'retry_after_sec', 0, 3_600, true);
        const state = await deps.control.drain(timeoutSec, retryAfterSec, holdParam(request));
        return reply.code(state.drained ? 200 : 409).send(state);
      });

      control.post('/sessions', async (request, reply) => {
        if (!deps.sessionFactory) {
          throw new ProxyHttpError(404, 'this proxy gets its sessions from the orchestrator; it creates none', 'not_found_error', 'no_session_factory');
        }
        const body = objectBody(request.body);
        const rolloutId = stringField(body, 'rollout_id', ROLLOUT_ID);
        const taskId = stringField(body, 'task_id', ROLLOUT_ID);
        const created = deps.sessionFactory.create({ rolloutId, taskId });
        const host = request.headers.host ? `http://${request.headers.host}` : deps.baseUrl();
        return reply.code(201).send({
          secret: created.secret,
          rollout_id: created.rolloutId,
          task_id: created.taskId || null,
          base_url: `${host}/s/${created.secret}/v1`,
        });
      });

      control.post('/rollouts/:rollout_id/reward', async (request) => {
        const { rollout_id: rolloutId } = request.params as { rollout_id: string };
        if (!deps.grades) {
          throw new ProxyHttpError(404, "this proxy's rollouts are graded by the orchestrator that runs them", 'not_found_error', 'no_grades');
        }
        const body = objectBody(request.body);
        const reward = body.reward;
        if (typeof reward !== 'number' || !Number.isFinite(reward))
          throw badRequest(`reward: expected a number, got ${reward === undefined ? 'nothing' : shown(reward)}`);
        const details = body.details ?? null;
        if (details !== null && (typeof details !== 'object' || Array.isArray(details)))
          throw badRequest(`details: expected a JSON object, got ${shown(details)}`);
        if (!(await deps.grades.setReward(rolloutId, reward, details))) {
          throw new ProxyHttpError(
            404,
            `rollout ${rolloutId} is not one of this proxy's: no session was created for it and no call of it recorded`,
            'not_found_error',
            'unknown_rollout',
          );
        }
        return { rollout_id: rolloutId, reward };
      });
    },
    { prefix: '/control' },
  );
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object');
  return body as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, key: string, pattern: RegExp): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw badRequest(`${key}: expected 1 to 200 characters of letters, digits and . _ : @ -, got ${shown(value)}`);
  }
  return value;
}

/** `mode: "hold"` (with `max_hold_sec`), or undefined for `refuse` (the default). */
function holdParam(request: FastifyRequest): HoldOptions | undefined {
  const mode = objectBody(request.body).mode ?? (request.query as Record<string, unknown> | undefined)?.mode ?? 'refuse';
  if (mode !== 'hold' && mode !== 'refuse') throw badRequest(`mode: expected "refuse" or "hold", got ${shown(mode)}`);
  const maxHoldSec = numberParam(request, 'max_hold_sec', DEFAULT_MAX_HOLD_SEC, 1, 3_600, false);
  return mode === 'hold' ? { maxHoldSec } : undefined;
}

/** `weight_version` from the JSON body or the query string: a string or a number, kept as a string. */
function weightVersionParam(request: FastifyRequest): string | undefined {
  const value = objectBody(request.body).weight_version ?? (request.query as Record<string, unknown> | undefined)?.weight_version;
  if (value === undefined) return undefined;
  if ((typeof value === 'string' && value.length > 0 && value.length <= 200) || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  throw badRequest(`weight_version: expected a string (1-200 characters) or a number, got ${shown(value)}`);
}

/** A number from the JSON body, else from the query string; `fallback` when neither has it. */
function numberParam(request: FastifyRequest, key: string, fallback: number, min: number, max: number, integer: boolean): number {
  return optionalNumberParam(request, key, min, max, integer) ?? fallback;
}

function optionalNumberParam(request: FastifyRequest, key: string, min: number, max: number, integer: boolean): number | undefined {
  const fromBody = objectBody(request.body)[key];
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.[key];
  const raw = fromBody ?? fromQuery;
  if (raw === undefined || raw === null) return undefined;
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw badRequest(`${key}: expected ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${shown(raw)}`);
  }
  return value;
}

function shown(value: unknown): string {
  return typeof value === 'object' && value !== null ? (Array.isArray(value) ? 'an array' : 'an object') : JSON.stringify(value).slice(0, 100);
}

function badRequest(message: string): ProxyHttpError {
  return new ProxyHttpError(400, message, 'invalid_request_error', 'invalid_control_request');
}
