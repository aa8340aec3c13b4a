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

/** A request body, parsed, with the bytes it was parsed from when it came through `parseJsonBody`. */
export interface JsonBody {
  parsed: unknown;
  bytes: Buffer | undefined;
}

/**
 * Takes the body out of fastify's request. Fastify keeps its request object until the response
 * ends, which for a model call is the whole generation; a parsed body left on it would live, and be
 * copied by the young-generation GC, for as long.
 */
export function takeJsonBody(request: { body: unknown }): JsonBody {
  const parsed = request.body;
  request.body = undefined;
  return { parsed, bytes: typeof parsed === 'object' && parsed !== null ? texts.get(parsed) : undefined };
}
