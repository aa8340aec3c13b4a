/**
 * The JSON bytes each parsed request body came from, so the record stores the harness's own text
 * instead of serialising the parsed body again. Keyed by the body object: nothing to clean up. Kept
 * as bytes, decoded when the call is recorded: a Buffer's bytes live outside the V8 heap, while a
 * string each call in flight held would be copied by the young-generation GC at every pass.
 */
const texts = new WeakMap<object, Buffer>();

export function parseJsonBody(bytes: Buffer): unknown {
  const body: unknown = JSON.parse(bytes.toString('utf8'));
  if (typeof body === 'object' && body !== null) texts.set(body, bytes);
  return body;
}

/** The text `body` was parsed from, when it came through `parseJsonBody`. */
export function rawJsonOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? texts.get(body)?.toString('utf8') : undefined;
}
