import { isRecord } from '../../util/is-record.js';

/** How far a rollout got through its task's plan. */
export interface PlanProgress {
  steps: number;
  /** Steps whose check passed in full. */
  reached: number;
  /** The mean of the steps' scores: a passed check 1, a failed one 0, a sub-score as it is (clamped to [0, 1]). */
  completion: number;
}

/**
 * Plan completion from what the grader recorded (reward.json's other fields). The plan's steps are the
 * names task.toml lists under `[metadata] steps`, else the grader's partial-credit keys: the members of
 * its `checks` object, or its top-level true/false and [0, 1] members other than `reward`. A step the
 * grader did not report counts as not reached. Undefined for a task without steps (a reward.txt grader).
 */
export function planProgress(rewardDetails: unknown, listedSteps: readonly string[] | undefined): PlanProgress | undefined {
  const scores = partialCredit(rewardDetails);
  const steps = listedSteps && listedSteps.length > 0 ? [...listedSteps] : [...scores.keys()];
  if (steps.length === 0 || (scores.size === 0 && !isRecord(rewardDetails))) return undefined;
  const values = steps.map((step) => scores.get(step) ?? 0);
  return { steps: steps.length, reached: values.filter((v) => v === 1).length, completion: values.reduce((a, b) => a + b, 0) / steps.length };
}

/** The grader's partial-credit keys and their scores in [0, 1]. */
function partialCredit(details: unknown): Map<string, number> {
  const scores = new Map<string, number>();
  if (!isRecord(details)) return scores;
  const source = isRecord(details.checks) ? details.checks : details;
  for (const [key, value] of Object.entries(source)) {
    if (source === details && key === 'reward') continue;
    if (typeof value === 'boolean') scores.set(key, value ? 1 : 0);
    else if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) scores.set(key, value);
  }
  return scores;
}
