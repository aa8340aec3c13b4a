import { RolloutError } from '../util/errors.js';
import type { Harness } from './types.js';

/** Harbor's oracle agent: runs the task's reference solution directly, no model. Validates tasks and graders. */
export const oracle: Harness = {
  name: 'oracle',
  usesModel: false,
  setup: (ctx) => {
    if (!ctx.task.solutionDir) throw new RolloutError('harness_crash', `task ${ctx.task.id} has no solution/solve.sh for the oracle`);
    return { files: [], env: {}, copies: [{ hostDir: ctx.task.solutionDir, sandboxDir: '/solution' }] };
  },
  command: () => ['bash', '/solution/solve.sh'],
  transcriptPaths: [],
};
