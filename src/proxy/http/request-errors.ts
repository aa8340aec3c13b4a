import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorMessage } from '../../util/errors.js';
import { ProxyHttpError, errorTypeForStatus, openAIErrorBody } from './http-error.js';
import { endpoints } from '../protocols/registry.js';
import { parseJsonBody } from './raw-body.js';
import type { ProxyLogger } from '../types.js';

/**
 * Bad requests answered before any handler runs — malformed JSON, oversized or non-JSON bodies,
 * unknown routes — as OpenAI-shaped errors that name the problem.
 */
export function installRequestErrors(app: FastifyInstance, bodyLimitBytes: number, logger: ProxyLogger): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, bytes, done) => {
    try {
      done(null, parseJsonBody(bytes as Buffer));
    } catch (err) {
      done(new ProxyHttpError(400, `malformed JSON body: ${errorMessage(err)}`, 'invalid_request_error', 'invalid_json'), undefined);
    }
  });

  app.setErrorHandler((error: FastifyError | ProxyHttpError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ProxyHttpError) {
      return reply.code(error.status).send(errorBodyFor(request.url)(error.message, error.type, error.code));
    }
    const status = error.statusCode ?? 500;
    let message = error.message;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = `request body larger than the limit of ${bodyLimitBytes} bytes`;
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      message = `unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}: send application/json`;
    }
    if (status >= 500) logger.error(`proxy: ${request.method} ${request.routeOptions.url ?? ''} failed: ${error.message}`);
    const code = status === 413 ? 'body_too_large' : (error.code ?? null);
    return reply.code(status).send(errorBodyFor(request.url)(message, errorTypeForStatus(status), code));
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        errorBodyFor(request.url)(`unknown route: ${request.method} ${request.url.replace(/^\/s\/[^/]+/, '/s/<secret>')}`, 'not_found_error', 'unknown_route'),
      ),
  );
}

/** The error shape of the protocol whose route a URL is on or under (`/v1/messages/…` → Anthropic's), else OpenAI's. */
function errorBodyFor(url: string): (message: string, type: string, code: string | null) => unknown {
  const path = (url.split('?')[0] ?? '').replace(/^\/s\/[^/]+/, '');
  const protocol = endpoints().find((p) => p.paths.some((served) => path === `/v1${served}` || path.startsWith(`/v1${served}/`)));
  return protocol?.errorBody ?? openAIErrorBody;
}
