import { RolloutError } from '../../util/errors.js';

/** The HTTP status the engine answered with, when the error is an answer of the engine's. */
export function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number } | undefined)?.statusCode;
}

/** The engine does not have the image a container was asked to run (a 404 can also be a network or container). */
export function isImageMissing(err: unknown): boolean {
  return statusOf(err) === 404 && /no such image/i.test(String((err as Error).message));
}

/** What a rollout is told when its image is not in the engine. */
export function imageNotFound(image: string): RolloutError {
  return new RolloutError('infrastructure', `image ${image} not found: build it with \`openforge images build\``);
}

/** Docker answers 404 for a missing object and 409 while its removal is already under way. */
export function isGone(err: unknown): boolean {
  const status = statusOf(err);
  return status === 404 || (status === 409 && /removal .* in progress|is already in progress/i.test(String((err as Error).message)));
}

/** The engine's socket is gone or refuses: the engine is stopped or restarting. */
export function isEngineUnreachable(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** Docker refuses an exec into a container that has stopped (it died, or an engine restart stopped it). */
export function isNotRunning(err: unknown): boolean {
  return statusOf(err) === 409 && /is not running|is paused|is restarting/i.test(String((err as Error).message));
}
