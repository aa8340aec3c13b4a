import { tokenBreakCause } from './break-cause.js';
import { commonPrefix, messageKey, requestMessages } from './conversation.js';
import { isRecord } from '../util/is-record.js';
import { placeImages } from './image-placeholders.js';
import { requestImages } from './images.js';
import { Conversation, conversationKeys, Segment, type TokenCall } from './segment.js';
import { CorruptCallError, type TrajectoryCall } from './trajectory-call.js';
import { emptyExclusionCounts, type BreakReason, type ExclusionCounts, type ExclusionReason, type MultiModalData, type TrajectorySample } from './types.js';

export interface RolloutContext {
  runId: string;
  rolloutId: string;
  taskId: string;
  sampleIndex: number;
  harness: string;
  reward: number | null;
  /** The run's upstream is the simulated model: its tokenizer may be used to tell retokenization apart. */
  simulated: boolean;
  /** Tokens the rollout's calls store (prompt pieces and completions), when known: the first sample's size, at most. */
  storedTokens?: number;
}

export interface RolloutBuildStats {
  policyCalls: number;
  /** Policy calls appended to a sample another call started. */
  mergedCalls: number;
  breaks: Partial<Record<BreakReason, number>>;
  excluded: ExclusionCounts;
}

interface Extension {
  conversation: Conversation;
  segment: Segment;
  prompt: ArrayLike<number>;
  from: number;
}

/** Helper conversations kept to recognise a policy call that continues one; older ones are forgotten. */
const HELPER_MEMORY = 8;

/**
 * Builds the token-level samples of one rollout from its calls, fed in seq order.
 *
 * A policy call whose prompt starts with all tokens of an open segment is merged into it: the
 * extra prompt tokens (tool results, user turns) get mask 0 and logprob 0, the completion mask 1
 * and its logprobs. Several conversations may be open at once (sub-agents): each call joins the one
 * its tokens extend. Where no segment is extended, the call's messages are compared with the open
 * conversations to name the cause, and a new segment starts.
 *
 * Helper and count_tokens calls are excluded and do not touch the policy conversations: a helper
 * call interleaved between two policy turns leaves their merge intact. Only when a policy call
 * continues a helper's own conversation is the new segment labelled `helper_call`. Failed calls
 * (non-200) are excluded too; the harness retries or gives up, so they never enter a history.
 */
export class RolloutTrajectoryBuilder {
  private readonly conversations: Conversation[] = [];
  private readonly helpers: TrajectoryCall[] = [];
  private readonly finished: Segment[] = [];
  private segmentCount = 0;
  private clock = 0;
  private readonly stats: RolloutBuildStats = { policyCalls: 0, mergedCalls: 0, breaks: {}, excluded: emptyExclusionCounts() };

  constructor(readonly context: RolloutContext) {}

  /**
   * Adds the next call. Returns a promise only when messages had to be read (where a chain breaks);
   * a call merged or excluded is handled at once, which matters when a whole run goes through here.
   */
  add(call: TrajectoryCall): Promise<void> | undefined {
    this.clock++;
    if (call.label === 'count_tokens') return this.exclude('count_tokens');
    if (call.label === 'helper') {
      this.helpers.push(call);
      if (this.helpers.length > HELPER_MEMORY) this.helpers.shift();
      return this.exclude('helper');
    }
    this.stats.policyCalls++;
    if (call.status !== 200 || call.error !== null) return this.exclude('failed');
    const unusable = unusableReason(call);
    if (unusable) {
      this.exclude(unusable);
      return this.taint(call);
    }
    const tokenCall = call as TokenCall;
    const extended = this.extendedByDelta(tokenCall) ?? this.extendedByTokens(tokenCall);
    if (extended && versionOf(extended.segment.lastCall) !== versionOf(tokenCall)) {
      this.splitAtUpdate(extended.conversation, tokenCall);
      return undefined;
    }
    if (extended) {
      extended.segment.merge(tokenCall, extended.prompt, extended.from);
      extended.conversation.advance(call, this.clock, false);
      this.stats.mergedCalls++;
      return undefined;
    }
    return this.startSegment(tokenCall);
  }

  /** The samples of the rollout in segment order, and what happened to its calls. */
  async finish(): Promise<{ samples: TrajectorySample[]; stats: RolloutBuildStats }> {
    const segments = [...this.finished, ...this.conversations.flatMap((c) => (c.segment ? [c.segment] : []))];
    segments.sort((a, b) => a.index - b.index);
    const samples: TrajectorySample[] = [];
    for (const segment of segments) samples.push(await this.sample(segment));
    return { samples, stats: this.stats };
  }

  private exclude(reason: ExclusionReason): undefined {
    this.stats.excluded[reason]++;
    return undefined;
  }

  /**
   * The store says the prompt is a suffix after all tokens of the call that ended a segment: that
   * segment is extended, and the suffix is the observation, without reading the whole prompt.
   */
  private extendedByDelta(call: TokenCall): Extension | undefined {
    const delta = call.promptDelta;
    if (!delta) return undefined;
    for (const conversation of this.conversations) {
      const segment = conversation.segment;
      if (conversation.tainted || !segment || segment.lastCall.seq !== delta.baseSeq || segment.tokenCount !== delta.sharedLen) continue;
      return { conversation, segment, prompt: delta.suffix, from: 0 };
    }
    return undefined;
  }

  /** The open conversation whose segment the prompt extends, the longest if several do. */
  private extendedByTokens(call: TokenCall): Extension | undefined {
    let best: Extension | undefined;
    for (const conversation of this.conversations) {
      const segment = conversation.segment;
      if (conversation.tainted || !segment || (best && best.segment.tokenCount >= segment.tokenCount)) continue;
      if (segment.extendedBy(call.promptTokenIds)) best = { conversation, segment, prompt: call.promptTokenIds, from: segment.tokenCount };
    }
    return best;
  }

  private async startSegment(call: TokenCall): Promise<void> {
    const { conversation, reason } = await this.placeBreak(call);
    const expected = this.segmentCount === 0 && this.context.storedTokens ? this.context.storedTokens : undefined;
    const segment = new Segment(this.segmentCount++, reason, call, expected);
    if (reason !== null) this.stats.breaks[reason] = (this.stats.breaks[reason] ?? 0) + 1;
    if (conversation) {
      if (conversation.segment) this.finished.push(conversation.segment);
      conversation.segment = segment;
      conversation.advance(call, this.clock, false);
    } else {
      this.conversations.push(new Conversation(call, segment, this.clock));
    }
  }

  /** The call extends its conversation's segment but was answered by other weights: a new segment starts at it. */
  private splitAtUpdate(conversation: Conversation, call: TokenCall): void {
    const segment = new Segment(this.segmentCount++, 'weight_update', call);
    this.stats.breaks.weight_update = (this.stats.breaks.weight_update ?? 0) + 1;
    if (conversation.segment) this.finished.push(conversation.segment);
    conversation.segment = segment;
    conversation.advance(call, this.clock, false);
  }

  /** A call without usable tokens: the conversation it continues cannot be merged past it. */
  private async taint(call: TrajectoryCall): Promise<void> {
    const { conversation } = await this.placeBreak(call);
    if (conversation) conversation.advance(call, this.clock, true);
    else {
      const ghost = new Conversation(call, undefined, this.clock);
      ghost.tainted = true;
      this.conversations.push(ghost);
    }
  }

  /**
   * Finds the conversation a call continues by its messages, and why its tokens start a new
   * segment. `conversation` is undefined when the call starts a conversation of its own, which
   * includes an edited history: the edited conversation stays open beside it, so that a sub-agent
   * sharing the main system prompt (indistinguishable from a compaction by messages alone) does not
   * take the main conversation's place; the main one goes on merging by its tokens.
   */
  private async placeBreak(call: TrajectoryCall): Promise<{ conversation?: Conversation; reason: BreakReason | null }> {
    if (this.conversations.length === 0 && this.helpers.length === 0) return { reason: null }; // the first conversation: nothing to compare
    const keys = await this.requestKeys(call);
    const open = [...this.conversations].sort((a, b) => b.touched - a.touched);
    for (const c of open) {
      const expected = await c.expectedKeys();
      if (expected.length > 0 && commonPrefix(expected, keys) === expected.length) {
        const reason =
          c.tainted || !c.segment || !hasTokens(call) ? 'missing_token_ids' : tokenBreakCause(c.segment, call.promptTokenIds, this.context.simulated);
        return { conversation: c, reason };
      }
    }
    for (const c of open) if (commonPrefix(await c.expectedKeys(), keys) > 0) return { reason: 'history_edited' };
    for (const helper of [...this.helpers].reverse()) {
      const expected = await conversationKeys(helper);
      if (expected.length > 0 && commonPrefix(expected, keys) === expected.length) return { reason: 'helper_call' };
    }
    return { reason: this.conversations.length > 0 ? 'sub_agent' : null };
  }

  private async requestKeys(call: TrajectoryCall): Promise<string[]> {
    return requestMessages(await call.request(), call.protocol).map(messageKey);
  }

  private async sample(segment: Segment): Promise<TrajectorySample> {
    const ctx = this.context;
    const last = segment.lastCall;
    return {
      prompt_ids: segment.promptIds,
      response_ids: segment.responseIds,
      response_mask: segment.responseMask,
      response_logprobs: segment.responseLogprobs,
      reward_score: ctx.reward,
      num_turns: segment.callSeqs.length,
      // a rollout recorded for no task (a standalone proxy's open token) is a group of its own
      uid: ctx.taskId || ctx.rolloutId,
      rollout_id: ctx.rolloutId,
      segment: segment.index,
      break_reason: segment.breakReason,
      harness: ctx.harness,
      weight_version: versionOf(last) ?? weightVersion(await last.responseIfContains('weight_version')),
      finish_reason: last.finishReason,
      multi_modal_data: await this.images(segment),
      extra_fields: {
        call_seqs: segment.callSeqs,
        simulated: ctx.simulated,
        excluded_calls: { ...this.stats.excluded },
        run_id: ctx.runId,
        sample_index: ctx.sampleIndex,
      },
    };
  }

  /** The images the segment's last request shows (the sample's whole conversation), each at its placeholder. */
  private async images(segment: Segment): Promise<MultiModalData | null> {
    const last = segment.lastCall;
    // Every image part type has "image" in its JSON; requests without it need not be read.
    const request = await last.requestIfContains('image');
    if (request === undefined) return null;
    const shown = requestImages(request, last.protocol);
    if (shown.length === 0) return null;
    const tokens = { prompt: segment.promptIds, response: segment.responseIds };
    return { images: placeImages(shown, tokens, { rolloutId: last.rolloutId, seq: last.seq }) };
  }
}

function hasTokens(call: TrajectoryCall): call is TokenCall {
  return unusableReason(call) === undefined;
}

/** Why a successful policy call cannot become training tokens, if it cannot. */
function unusableReason(call: TrajectoryCall): ExclusionReason | undefined {
  // A stored delta implies a prompt: checking it first avoids decoding the whole prompt.
  if (call.missingTokenIds || (!call.promptDelta && !call.promptTokenIds) || !call.completionTokenIds) return 'missing_token_ids';
  if (!call.logprobs) return 'missing_logprobs';
  if (call.logprobs.length !== call.completionTokenIds.length) {
    throw new CorruptCallError(call.rolloutId, call.seq, `${call.logprobs.length} logprobs for ${call.completionTokenIds.length} completion tokens`);
  }
  // JSON has no NaN or infinities, and a trainer cannot use them either.
  const logprobs = call.logprobs;
  for (let i = 0; i < logprobs.length; i++) if (!Number.isFinite(logprobs[i])) return 'missing_logprobs';
  return undefined;
}

function versionOf(call: TrajectoryCall): string | null {
  return call.weightVersion ?? null;
}

/** The weight version the upstream reported with its answer, when it reported one. */
function weightVersion(response: unknown): string | null {
  if (!isRecord(response)) return null;
  const v = response.weight_version;
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}
