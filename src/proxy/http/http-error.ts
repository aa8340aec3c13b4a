import { clientErrorAnswer } from '../../util/client-error.js';

/** An error the proxy answers itself, with an HTTP status and an OpenAI-style type and code. */
export class ProxyHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ProxyHttpError';
  }
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string | null };
}

export function openAIErrorBody(message: string, type: string, code: string | null): OpenAIErrorBody {
  return { error: { message, type, code } };
}

/** The proxy's answer to a request Node's HTTP parser refused, on every host it serves. */
export const answerClientError = clientErrorAnswer((message, status) => openAIErrorBody(message, errorTypeForStatus(status), 'malformed_http_request'));

/** OpenAI's error `type` for a status, used when the error came from elsewhere (fastify, upstream). */
export function errorTypeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request_error';
}
