import { groupBy } from './grouping.js';

/** A rollout of a reference run: the same answers every time (the oracle's solution, or nothing done). */
export interface ReferenceRollout {
  taskId: string;
  reward: number | null;
  errorType: string | null;
}

/** One harness's rollouts of a suite, each task run several times. */
export interface ReferenceRun {
  harness: string;
  rollouts: readonly ReferenceRollout[];
}

export interface FlakyVerdict {
  taskId: string;
  flaky: boolean;
  /** False when a harness got fewer than two graded rollouts of the task: nothing could vary. */
  judged: boolean;
  /** Rewards per harness, in rollout order (null: no reward). */
  rewards: Record<string, (number | null)[]>;
  /** Why the task is flagged (empty when it is not), or what was left out. */
  notes: string[];
}

/**
 * Failures that say nothing about the task's grader: the sandbox, the image, the environment or the run
 * itself failed before a reward could be given. Such rollouts are left out of the comparison.
 */
const NOT_THE_TASK = new Set(['infrastructure', 'build', 'environment_setup', 'cancelled']);

/**
 * Tasks whose reward varies under the same answers: for each harness, its rollouts of a task must all
 * get the same reward, and the grader must give one every time (a `verifier_failure` among rewarded
 * rollouts is a variation too). A non-deterministic grader or environment shows up here. A task a harness
 * graded fewer than twice is not judged.
 */
export function flakyTasks(runs: readonly ReferenceRun[]): FlakyVerdict[] {
  const tasks = new Set(runs.flatMap((run) => run.rollouts.map((r) => r.taskId)));
  return [...tasks].sort().map((taskId) => {
    const verdict: FlakyVerdict = { taskId, flaky: false, judged: true, rewards: {}, notes: [] };
    for (const run of runs) {
      const rollouts = groupBy(run.rollouts, (r) => r.taskId).get(taskId) ?? [];
      verdict.rewards[run.harness] = rollouts.map((r) => r.reward);
      const graded = rollouts.filter((r) => !(r.errorType && NOT_THE_TASK.has(r.errorType)));
      const left = rollouts.length - graded.length;
      if (left > 0)
        verdict.notes.push(
          `${run.harness}: ${left} rollout(s) left out (${[...new Set(rollouts.filter((r) => !graded.includes(r)).map((r) => r.errorType))].join(', ')})`,
        );
      if (graded.length < 2) verdict.judged = false;
      const outcomes = new Set(graded.map((r) => (r.reward === null ? `no reward (${r.errorType ?? 'none'})` : String(r.reward))));
      if (outcomes.size > 1) {
        verdict.flaky = true;
        verdict.notes.push(`${run.harness}: ${outcomes.size} different outcomes in ${graded.length} rollouts (${[...outcomes].join(', ')})`);
      }
    }
    return verdict;
  });
}
