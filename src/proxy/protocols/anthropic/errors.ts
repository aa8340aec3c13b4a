import { ProxyHttpError } from '../../http/http-error.js';

/** Anthropic's error body: `{type: "error", error: {type, message}}`. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/** The error types Anthropic documents; the SDK and Claude Code read them (e.g. to retry `overloaded_error`). */
const ANTHROPIC_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
]);

/**
 * The proxy's errors carry OpenAI-style types and codes; Anthropic clients get the nearest
 * Anthropic type (anything server-side, like `upstream_error`, becomes `api_error`).
 */
export function anthropicErrorBody(message: string, type: string, code: string | null): AnthropicErrorBody {
  let anthropicType = ANTHROPIC_ERROR_TYPES.has(type) ? type : 'api_error';
  if (code === 'body_too_large') anthropicType = 'request_too_large';
  return { type: 'error', error: { type: anthropicType, message } };
}

/** A 400 for an Anthropic request, naming the field (`messages.2.content.0: …`). */
export function invalidAnthropicRequest(field: string, problem: string): ProxyHttpError {
  return new ProxyHttpError(400, `${field}: ${problem}`, 'invalid_request_error', 'invalid_request');
}
