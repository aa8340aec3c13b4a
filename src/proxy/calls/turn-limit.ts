import type { ServerResponse } from 'node:http';
import type { CallOutcome } from './call-outcome.js';
import { answerFinalMessage } from './final-message.js';
import type { PreparedCall } from '../protocols/types.js';

/** Recorded as the call's upstream: nothing was asked of the model. */
export const TURN_LIMIT_UPSTREAM = 'openforge:max_turns';

/**
 * Policy calls served per session, for sessions with a turn limit the proxy enforces (harnesses with no
 * limit of their own, e.g. OpenClaw and Codex). Counted at arrival, so concurrent calls cannot overshoot.
 */
export class TurnBudget {
  private readonly used = new Map<string, number>();

  /** Counts one policy call of the session; true when its limit was already used up. */
  spend(secret: string, limit: number): boolean {
    const used = this.used.get(secret) ?? 0;
    if (used >= limit) return true;
    this.used.set(secret, used + 1);
    return false;
  }
}

/**
 * Answers a policy call past the session's turn limit without asking the model: a final message
 * (see answerFinalMessage) whose recorded error names the limit.
 */
export function answerTurnLimit(call: PreparedCall, limit: number, res: ServerResponse, keepaliveMs: number, elapsedMs: () => number): Promise<CallOutcome> {
  const text = `Stopping: this episode has used its limit of ${limit} model turns (max_turns).`;
  const error = `max_turns (${limit}) reached: the proxy answered with a final message instead of asking the model`;
  return answerFinalMessage(call, { text, error, upstream: TURN_LIMIT_UPSTREAM }, res, keepaliveMs, elapsedMs);
}
