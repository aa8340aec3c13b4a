/** The HTTP status and the API server's own message of a failed call (ApiException carries the Status body). */
export function apiError(err: unknown): { code?: number; message: string } {
  const e = err as { code?: number; body?: unknown; message?: string };
  let body = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // a plain-text body
    }
  }
  const message = (body as { message?: string } | undefined)?.message ?? (typeof body === 'string' && body ? body : (e.message ?? String(err)).split('\n')[0]!);
  return { code: typeof e.code === 'number' ? e.code : undefined, message };
}

export function isNotFound(err: unknown): boolean {
  return apiError(err).code === 404;
}
