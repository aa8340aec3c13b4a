import { createHash } from 'node:crypto';
import { contentText } from '../assistant-answer.js';
import type { ChatRequest } from '../chat-request.js';
import { createOraclePolicy } from './oracle.js';
import type { Policy, PolicyAnswer } from './types.js';

export const GIVE_UP_ANSWER = 'I could not complete the task.';

/**
 * The oracle, except that a fraction `failureRate` of rollouts give up at once. Whether a
 * rollout gives up is a hash of its id (or of its first user message when the id is unknown),
 * so every call of one rollout agrees, and a re-run behaves the same.
 */
export function createNoisyPolicy(failureRate: number): Policy {
  const oracle = createOraclePolicy();
  return {
    name: `noisy:${failureRate}`,
    needsTask: true,
    respond(request, ctx) {
      const seed = ctx.rolloutId ?? firstUserText(request);
      if (rolloutGivesUp(seed, failureRate)) return giveUp();
      return oracle.respond(request, ctx);
    },
  };
}

export function rolloutGivesUp(seed: string, failureRate: number): boolean {
  return unitInterval(seed) < failureRate;
}

/** A uniform number in [0, 1) determined by the seed. */
function unitInterval(seed: string): number {
  return createHash('sha256').update(seed).digest().readUIntBE(0, 6) / 2 ** 48;
}

function firstUserText(request: ChatRequest): string {
  const first = request.messages.find((m) => m.role === 'user');
  return first ? contentText(first.content) : '';
}

function giveUp(): PolicyAnswer {
  return { content: GIVE_UP_ANSWER, toolCalls: [] };
}
