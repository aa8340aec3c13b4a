import { describe, expect, it } from 'vitest';
import { flakyTasks, type ReferenceRollout } from '../../../src/analytics/flaky-tasks.js';

const rollouts = (taskId: string, rewards: (number | null)[], errorType: string | null = null): ReferenceRollout[] =>
  rewards.map((reward) => ({ taskId, reward, errorType: reward === null ? errorType : null }));

describe('flaky task detection', () => {
  it('flags a task whose reward varies under the same answers, for either harness', () => {
    const verdicts = flakyTasks([
      { harness: 'oracle', rollouts: [...rollouts('steady', [1, 1, 1]), ...rollouts('coin', [1, 0, 1]), ...rollouts('quiet', [1, 1, 1])] },
      { harness: 'nop', rollouts: [...rollouts('steady', [0, 0, 0]), ...rollouts('coin', [0, 0, 0]), ...rollouts('quiet', [0, 0.5, 0])] },
    ]);
    expect(verdicts.map((v) => [v.taskId, v.flaky])).toEqual([
      ['coin', true],
      ['quiet', true],
      ['steady', false],
    ]);
    expect(verdicts[0]!.notes).toEqual(['oracle: 2 different outcomes in 3 rollouts (1, 0)']);
    expect(verdicts[2]!.rewards).toEqual({ oracle: [1, 1, 1], nop: [0, 0, 0] });
  });

  it('counts a grader that sometimes gives no reward, and leaves out failures that are not the task’s', () => {
    const [crashes] = flakyTasks([{ harness: 'oracle', rollouts: rollouts('t', [1, null, 1], 'verifier_failure') }]);
    expect(crashes).toMatchObject({ flaky: true, notes: ['oracle: 2 different outcomes in 3 rollouts (1, no reward (verifier_failure))'] });
    const [sandbox] = flakyTasks([{ harness: 'oracle', rollouts: rollouts('t', [1, null, 1], 'infrastructure') }]);
    expect(sandbox).toMatchObject({ flaky: false, judged: true, notes: ['oracle: 1 rollout(s) left out (infrastructure)'] });
    const [unseen] = flakyTasks([{ harness: 'oracle', rollouts: rollouts('t', [1, null, null], 'infrastructure') }]);
    expect(unseen).toMatchObject({ flaky: false, judged: false });
  });
});
