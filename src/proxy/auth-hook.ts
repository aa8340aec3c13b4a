import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProxySession } from '../store/types.js';
import { authenticate } from './auth.js';
import { ProxyHttpError } from './http-error.js';
import { withClientTask } from './session-task.js';
import type { SessionResolver } from './types.js';

const sessions = new WeakMap<FastifyRequest, ProxySession>();

type ErrorBody = (message: string, type: string, code: string | null) => unknown;

/**
 * An onRequest hook: authenticates before the body is read, so a request without a valid secret
 * gets its 401 whatever its body, and costs no parsing.
 */
export function authHook(resolver: SessionResolver, errorBody: ErrorBody) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { secret } = request.params as { secret?: string };
    try {
      sessions.set(request, withClientTask(authenticate(resolver, secret, request.headers), request.headers));
    } catch (err) {
      if (!(err instanceof ProxyHttpError)) throw err;
      await reply.code(err.status).send(errorBody(err.message, err.type, err.code));
    }
  };
}

/** The session authenticated by `authHook` for this request. */
export function sessionOf(request: FastifyRequest): ProxySession {
  const session = sessions.get(request);
  if (!session) throw new Error('proxy: route served without the auth hook');
  return session;
}
