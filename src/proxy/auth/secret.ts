import type { IncomingHttpHeaders } from 'node:http';
import type { ProxySession } from '../session.js';
import { ProxyHttpError } from '../http/http-error.js';
import type { SessionResolver } from '../types.js';

/**
 * The session secret a request presents: the `/s/<secret>/v1` path segment wins, then
 * `Authorization: Bearer <secret>`, then `x-api-key`.
 */
export function presentedSecret(pathSecret: string | undefined, headers: IncomingHttpHeaders): string | undefined {
  if (pathSecret !== undefined) return pathSecret;
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1]) return match[1].trim();
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.length > 0) return apiKey.trim();
  return undefined;
}

export function authenticate(sessions: SessionResolver, pathSecret: string | undefined, headers: IncomingHttpHeaders): ProxySession {
  const secret = presentedSecret(pathSecret, headers);
  if (secret === undefined) {
    throw new ProxyHttpError(
      401,
      'missing session secret: use the base URL /s/<secret>/v1, or send the secret as Authorization: Bearer or x-api-key',
      'authentication_error',
      'missing_api_key',
    );
  }
  const found = sessions.bySecret(secret);
  if (!found) {
    throw new ProxyHttpError(401, 'invalid session secret', 'authentication_error', 'invalid_api_key');
  }
  return found;
}
