import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorMessage } from '../../util/errors.js';
import { sessionOf } from '../auth/auth-hook.js';
import { errorTypeForStatus, openAIErrorBody, ProxyHttpError } from './http-error.js';
import { readText } from '../upstream/http-client.js';
import type { UpstreamPool } from '../upstream/upstream-pool.js';

/** GET /v1/models: the model list of the rollout's upstream, passed through (not recorded). */
export function modelsHandler(pool: UpstreamPool) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) abort.abort(new Error('client disconnected'));
    });
    try {
      const answer = await pool.get('models', sessionOf(request), abort.signal);
      if (!answer.ok) {
        return reply.code(answer.status).send(openAIErrorBody(answer.message, errorTypeForStatus(answer.status), 'upstream_error'));
      }
      const list: unknown = JSON.parse(await readText(answer.response));
      return reply.send(list);
    } catch (err) {
      if (err instanceof ProxyHttpError) return reply.code(err.status).send(openAIErrorBody(err.message, err.type, err.code));
      const message = `could not list the upstream's models: ${errorMessage(err)}`;
      return reply.code(502).send(openAIErrorBody(message, 'upstream_error', 'upstream_invalid_response'));
    }
  };
}
