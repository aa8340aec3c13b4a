/** Docker answers 404 for a missing object and 409 while its removal is already under way. */
export function isGone(err: unknown): boolean {
  const status = (err as { statusCode?: number }).statusCode;
  return status === 404 || (status === 409 && /removal .* in progress|is already in progress/i.test(String((err as Error).message)));
}

/** The engine's socket is gone or refuses: the engine is stopped or restarting. */
export function isEngineUnreachable(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** Docker refuses an exec into a container that has stopped (it died, or an engine restart stopped it). */
export function isNotRunning(err: unknown): boolean {
  return (err as { statusCode?: number }).statusCode === 409 && /is not running|is paused|is restarting/i.test(String((err as Error).message));
}
