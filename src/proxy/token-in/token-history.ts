import type { TransientPolicy } from '../types.js';

/** One policy call the proxy served in token-in mode: the conversation as meaning keys, and its exact tokens. */
export interface ServedTurn {
  /** Keys of the request's messages followed by the answer's. */
  keys: readonly string[];
  promptIds: readonly number[];
  completionIds: readonly number[];
  /** End-of-turn markers in the request's whole render (with the generation prompt). */
  turnsEnded: number;
}

/** A served turn a request continues, and where its answer is among the request's messages. */
export interface ContinuedTurn {
  turn: ServedTurn;
  answerAt: number;
  /** Trailing user messages of the served request that this request left out (a harness's transient context). */
  transient: number;
}

/** Conversations kept per rollout (a main agent and its sub-agents). */
const TURNS_PER_ROLLOUT = 4;
/** Rollouts remembered; the least recently served is forgotten first. */
const ROLLOUTS = 4096;

/**
 * The exact token history of each rollout's conversations: the prompt and sampled ids of the last
 * policy call of each. A request continues a conversation when its messages start with that call's
 * messages and answer (by meaning) and add at least one message. Under `keep`, the user messages a
 * served request ended with may be missing before the answer (a harness that sends its runtime context
 * as a last user message and drops it next time): the model saw them, so they stay in the token history.
 */
export class TokenHistories {
  private readonly byRollout = new Map<string, ServedTurn[]>();

  constructor(private readonly transient: TransientPolicy = 'keep') {}

  /** The served turn this request's messages continue, the longest if several do, with the fewest messages left out. */
  continued(rolloutId: string, keys: readonly string[]): ContinuedTurn | undefined {
    let best: ContinuedTurn | undefined;
    for (const turn of this.byRollout.get(rolloutId) ?? []) {
      const match = this.match(turn, keys);
      if (!match) continue;
      if (!best || match.answerAt > best.answerAt || (match.answerAt === best.answerAt && match.transient < best.transient)) best = match;
    }
    return best;
  }

  /** Records a served turn, in place of the one it continued. */
  served(rolloutId: string, turn: ServedTurn, continued: ServedTurn | undefined): void {
    const turns = (this.byRollout.get(rolloutId) ?? []).filter((t) => t !== continued);
    turns.push(turn);
    if (turns.length > TURNS_PER_ROLLOUT) turns.shift();
    this.byRollout.delete(rolloutId);
    this.byRollout.set(rolloutId, turns);
    if (this.byRollout.size > ROLLOUTS) this.byRollout.delete(this.byRollout.keys().next().value as string);
  }

  private match(turn: ServedTurn, keys: readonly string[]): ContinuedTurn | undefined {
    const asked = turn.keys.length - 1;
    const answer = turn.keys[asked] as string;
    // the trailing user messages of the served request, which a harness may leave out; never the first message
    let firstTrailingUser = asked;
    if (this.transient === 'keep') while (firstTrailingUser > 1 && isUser(turn.keys[firstTrailingUser - 1] as string)) firstTrailingUser--;
    for (let kept = asked; kept >= firstTrailingUser; kept--) {
      if (keys.length <= kept + 1 || keys[kept] !== answer) continue;
      let same = true;
      for (let i = 0; i < kept && same; i++) same = keys[i] === turn.keys[i];
      if (same) return { turn, answerAt: kept, transient: asked - kept };
    }
    return undefined;
  }
}

function isUser(key: string): boolean {
  return key.startsWith('["user",');
}
