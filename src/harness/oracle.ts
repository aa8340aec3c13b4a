import { RolloutError } from '../util/errors.js';
import type { Harness } from './types.js';

/** Harbor's oracle agent: runs the task's reference solution directly, no model. Validates tasks and graders. */
export const oracle: Harness = {
  name: 'oracle',
  usesModel: false,
  setup: (ctx) => {
    if (!ctx.task.solutionDir) throw new RolloutError('harness_crash', `task ${ctx.task.id} has no solution/solve.sh for the oracle`);
    // A GUI task's reference solution replays actions through the rollout's env server, which asks for its token.
    const env: Record<string, string> = ctx.environmentToken ? { OPENFORGE_ENV_TOKEN: ctx.environmentToken } : {};
    return { files: [], env, copies: [{ hostDir: ctx.task.solutionDir, sandboxDir: '/solution' }] };
  },
  command: () => ['bash', '/solution/solve.sh'],
  transcriptPaths: [],
};
