/**
 * Headers the proxy adds to its requests to the upstream, naming what a call belongs to. The sim reads
 * them (the oracle solves the named task; the rollout seeds the noisy policy); real engines ignore them.
 */

/** The task (its id) the call was made for. */
export const TASK_HEADER = 'x-openforge-task';
/** The rollout the call belongs to. */
export const ROLLOUT_HEADER = 'x-openforge-rollout';
