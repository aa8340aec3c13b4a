import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { presentedSecret } from './secret.js';
import { openAIErrorBody } from '../http/http-error.js';
import type { SessionResolver } from '../types.js';

export interface ControlAccessRule {
  /** Unset: control answers loopback clients only. */
  adminToken: string | undefined;
  sessions: SessionResolver;
}

export type ControlDenial = { status: 401 | 403; code: string; message: string };

/**
 * Who may use /control/*: the bearer of the admin token, or, when the proxy has none, a loopback
 * client. A rollout's session secret is refused either way, so a harness (which only ever holds
 * its secret and reaches the proxy from a container) can never pause the proxy or mint sessions.
 */
export function controlDenial(rule: ControlAccessRule, headers: IncomingHttpHeaders, remoteAddress: string | undefined): ControlDenial | null {
  const bearer = bearerToken(headers.authorization);
  if (rule.adminToken !== undefined && bearer !== undefined && sameSecret(bearer, rule.adminToken)) return null;
  const presented = presentedSecret(undefined, headers);
  if (presented !== undefined && rule.sessions.bySecret(presented) !== undefined) {
    return { status: 403, code: 'session_secret_refused', message: 'control routes do not accept a rollout session secret' };
  }
  if (rule.adminToken !== undefined) {
    return { status: 401, code: 'admin_token_required', message: 'control routes need Authorization: Bearer <admin token>' };
  }
  if (!isLoopback(remoteAddress)) {
    return {
      status: 403,
      code: 'loopback_only',
      message: 'this proxy has no admin token, so its control routes answer loopback clients only',
    };
  }
  return null;
}

/** An onRequest hook enforcing `controlDenial`. */
export function controlAuthHook(rule: ControlAccessRule) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const denial = controlDenial(rule, request.headers, request.socket.remoteAddress);
    if (denial) await reply.code(denial.status).send(openAIErrorBody(denial.message, 'authentication_error', denial.code));
  };
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  return match?.[1]?.trim();
}

function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
