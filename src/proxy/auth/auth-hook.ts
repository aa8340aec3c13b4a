import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ProxySession } from '../session.js';
import { authenticate } from './secret.js';
import { ProxyHttpError } from '../http/http-error.js';
import { withClientTask } from './session-task.js';
import type { SessionResolver } from '../types.js';

const requestSessions = new WeakMap<FastifyRequest, ProxySession>();

type ErrorBody = (message: string, type: string, code: string | null) => unknown;

/**
 * An onRequest hook: authenticates before the body is read, so a request without a valid secret
 * gets its 401 whatever its body, and costs no parsing. Callback style: no promise per request.
 */
export function authHook(resolver: SessionResolver, errorBody: ErrorBody) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const { secret } = request.params as { secret?: string };
    let session: ProxySession;
    try {
      session = withClientTask(authenticate(resolver, secret, request.headers), request.headers);
    } catch (err) {
      if (!(err instanceof ProxyHttpError)) {
        done(err as Error);
        return;
      }
      // answered here: fastify runs nothing more for this request, so `done` is not called
      reply.code(err.status).send(errorBody(err.message, err.type, err.code));
      return;
    }
    requestSessions.set(request, session);
    done();
  };
}

/** The session authenticated by `authHook` for this request. */
export function sessionOf(request: FastifyRequest): ProxySession {
  const found = requestSessions.get(request);
  if (!found) throw new Error('proxy: route served without the auth hook');
  return found;
}
