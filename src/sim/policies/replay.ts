import { SimHttpError } from '../sim-http-error.js';
import type { Policy, PolicyAnswer } from './types.js';

/**
 * Answers with the responses recorded for an earlier rollout: the call whose conversation
 * already holds n assistant messages gets recorded answer n.
 */
export function createReplayPolicy(answers: readonly PolicyAnswer[]): Policy {
  return {
    name: 'replay',
    respond(request) {
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      const answer = answers[turn];
      if (!answer) {
        throw new SimHttpError(
          409,
          `replay has ${answers.length} recorded answer(s), but this request already holds ${turn} assistant message(s) and asks for answer ${turn + 1}: the conversation went past the recording`,
          { code: 'replay_exhausted' },
        );
      }
      return answer;
    },
  };
}
