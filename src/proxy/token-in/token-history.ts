/** One policy call the proxy served in token-in mode: the conversation as meaning keys, and its exact tokens. */
export interface ServedTurn {
  /** Keys of the request's messages followed by the answer's. */
  keys: readonly string[];
  promptIds: readonly number[];
  completionIds: readonly number[];
  /** End-of-turn markers in the request's whole render (with the generation prompt). */
  turnsEnded: number;
}

/** Conversations kept per rollout (a main agent and its sub-agents). */
const TURNS_PER_ROLLOUT = 4;
/** Rollouts remembered; the least recently served is forgotten first. */
const ROLLOUTS = 4096;

/**
 * The exact token history of each rollout's conversations: the prompt and sampled ids of the last
 * policy call of each. A request continues a conversation when its messages start with that call's
 * messages and answer (by meaning) and add at least one message.
 */
export class TokenHistories {
  private readonly byRollout = new Map<string, ServedTurn[]>();

  /** The served turn this request's messages continue, the longest if several do. */
  continued(rolloutId: string, keys: readonly string[]): ServedTurn | undefined {
    let best: ServedTurn | undefined;
    for (const turn of this.byRollout.get(rolloutId) ?? []) {
      if (turn.keys.length >= keys.length || (best && best.keys.length >= turn.keys.length)) continue;
      if (turn.keys.every((key, i) => key === keys[i])) best = turn;
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
}
