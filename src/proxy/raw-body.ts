/**
 * The JSON text each parsed request body came from, so the record stores the harness's own bytes
 * instead of serialising the parsed body again. Keyed by the body object: nothing to clean up.
 */
const texts = new WeakMap<object, string>();

export function parseJsonBody(text: string): unknown {
  const body: unknown = JSON.parse(text);
  if (typeof body === 'object' && body !== null) texts.set(body, text);
  return body;
}

/** The text `body` was parsed from, when it came through `parseJsonBody`. */
export function rawJsonOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? texts.get(body) : undefined;
}
