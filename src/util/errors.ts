/**
 * Errors a user can act on. `UserError` messages are printed without a stack trace by the CLI:
 * they must name the problem (file, key, value) and how to fix it.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(hint ? `${message}\n  hint: ${hint}` : message);
    this.name = 'UserError';
  }
}

/** Types of rollout failure, recorded per rollout and counted in summaries. */
export const ERROR_TYPES = [
  'infrastructure', // the sandbox could not be built, started or reached (retried before the agent starts)
  'build', // the task image failed to build
  'environment_setup', // the task's environment (a browser task's display, sites, env server) did not come up
  'agent_timeout', // the harness ran past [agent] timeout_sec and was killed
  'harness_crash', // the harness exited non-zero on its own
  'oom_killed', // a process in the container was killed for exceeding the memory limit
  'verifier_failure', // the grader crashed, timed out or wrote no reward
  'cancelled', // the run was interrupted
  'upstream_error', // the policy's inference server failed the rollout's calls (an outage, not the agent's doing): no reward, retried
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export class RolloutError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'RolloutError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
