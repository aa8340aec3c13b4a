import { randomBytes } from 'node:crypto';
import { UserError } from '../../util/errors.js';
import { ProxyHttpError } from '../http/http-error.js';

/**
 * Runs a protocol's request translator on an answer someone wrote (a fork's edited answer), turning its
 * 400, which names the field, into a UserError about the answer.
 */
export function translatedAnswer<T>(run: () => T, what: string, hint: string, rename: (message: string) => string): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ProxyHttpError) throw new UserError(`${what} is not valid: ${rename(err.message)}`, hint);
    throw err;
  }
}

/** A fresh id in a protocol's style, for tool calls someone wrote without one: the harness only needs them to match its tool results. */
export function newCallId(prefix: 'call' | 'toolu'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
