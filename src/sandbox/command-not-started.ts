import { RolloutError } from '../util/errors.js';

/**
 * An exec whose command never started: the sandbox had stopped, or the backend did not answer. Nothing ran
 * in the sandbox, so a rollout whose agent exec ends so has not run its agent, and may be retried.
 */
export class CommandNotStartedError extends RolloutError {
  constructor(message: string) {
    super('infrastructure', message);
    this.name = 'CommandNotStartedError';
  }
}
