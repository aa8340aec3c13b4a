import { UserError } from '../../util/errors.js';
import { createNoisyPolicy } from './noisy.js';
import { createOraclePolicy } from './oracle.js';
import { createReplayPolicy } from './replay.js';
import type { PolicySpec } from './sim-spec.js';
import type { Policy, PolicyAnswer } from './types.js';

export function createPolicy(spec: PolicySpec, replayAnswers?: readonly PolicyAnswer[]): Policy {
  switch (spec.kind) {
    case 'oracle':
      return createOraclePolicy();
    case 'noisy':
      return createNoisyPolicy(spec.failureRate);
    case 'replay':
      if (!replayAnswers) {
        throw new UserError(`sim:replay:${spec.rolloutId} needs the answers recorded for rollout ${spec.rolloutId}`, 'pass them as replayAnswers');
      }
      return createReplayPolicy(replayAnswers);
  }
}
