import type { z } from 'zod';
import { ProxyHttpError } from '../../http/http-error.js';

/** A 400 for a Responses request, naming the field, e.g. `input[2].call_id: expected string`. */
export function invalidResponsesRequest(field: string, problem: string): ProxyHttpError {
  return new ProxyHttpError(400, `invalid responses request: ${field}: ${problem}`, 'invalid_request_error', 'invalid_request');
}

/** `input[2].content[0].image_url` from a base path and a zod issue path. */
export function fieldPath(base: string, path: readonly PropertyKey[]): string {
  let text = base;
  for (const key of path) text += typeof key === 'number' ? `[${key}]` : text ? `.${String(key)}` : String(key);
  return text || 'body';
}

/** Parses `value` or throws a 400 naming the first wrong field under `base`. */
export function parseField<T extends z.ZodType>(schema: T, value: unknown, base: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw invalidResponsesRequest(fieldPath(base, issue?.path ?? []), issue?.message ?? 'invalid value');
}
