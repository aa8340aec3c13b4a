import { answerMessages, messageKey, requestMessages } from './conversation.js';
import { TokenBuffer } from './token-buffer.js';
import { startsWithConcat } from './token-prefix.js';
import type { TrajectoryCall } from './trajectory-call.js';
import type { BreakReason } from './types.js';

/** A call whose token ids and logprobs are all present and line up. */
export type TokenCall = TrajectoryCall & { promptTokenIds: ArrayLike<number>; completionTokenIds: ArrayLike<number>; logprobs: ArrayLike<number> };

/**
 * One open conversation of a rollout. `tip` is the last call seen in it: the next request of the
 * same conversation should contain the tip's messages plus its answer. A conversation whose tip had
 * no usable tokens is `tainted`: its next call cannot be merged (the tip's generated tokens would
 * otherwise be masked as observations) and starts a new segment.
 */
export class Conversation {
  tainted = false;
  private expected: string[] | undefined;

  constructor(
    public tip: TrajectoryCall,
    /** The token segment being built; undefined while no call of this conversation had usable tokens. */
    public segment: Segment | undefined,
    public touched: number,
  ) {}

  advance(call: TrajectoryCall, touched: number, tainted: boolean): void {
    this.tip = call;
    this.touched = touched;
    this.tainted = tainted;
    this.expected = undefined;
  }

  /** Message keys the next request of this conversation starts with. */
  async expectedKeys(): Promise<string[]> {
    this.expected ??= await conversationKeys(this.tip);
    return this.expected;
  }
}

/** Keys of a call's request messages followed by its answer. */
export async function conversationKeys(call: TrajectoryCall): Promise<string[]> {
  const request = requestMessages(await call.request(), call.protocol).map(messageKey);
  const answer = answerMessages(await call.response(), call.protocol).map(messageKey);
  return [...request, ...answer];
}

/** The tokens of one sample as it grows: first prompt, then completions with the observations between them. */
export class Segment {
  private readonly ids: TokenBuffer<Int32Array>;
  private readonly mask: TokenBuffer<Uint8Array>;
  private readonly logprobs: TokenBuffer<Float64Array>;
  readonly promptIds: Int32Array;
  readonly callSeqs: number[] = [];
  /** The last call merged; earlier calls are not kept (each holds a whole prompt). */
  lastCall: TokenCall;
  /** Where the last completion starts in the response. */
  private lastCompletionStart = 0;

  constructor(
    readonly index: number,
    readonly breakReason: BreakReason | null,
    first: TokenCall,
    /** Response tokens to make room for at once (growing a long sample step by step copies it again and again). */
    expectedTokens = 4096,
  ) {
    this.ids = TokenBuffer.ints(expectedTokens);
    this.mask = TokenBuffer.bytes(expectedTokens);
    this.logprobs = TokenBuffer.floats(expectedTokens);
    this.promptIds = Int32Array.from(first.promptTokenIds);
    this.lastCall = first;
    this.appendCompletion(first);
  }

  get tokenCount(): number {
    return this.promptIds.length + this.ids.length;
  }

  /** The response so far: generated tokens and the observations between them (views, valid until the next merge). */
  get responseIds(): Int32Array {
    return this.ids.view();
  }

  /** 1 for a generated token, 0 for an observation's. */
  get responseMask(): Uint8Array {
    return this.mask.view();
  }

  /** The logprob of each generated token, 0 for an observation's. */
  get responseLogprobs(): Float64Array {
    return this.logprobs.view();
  }

  /** True when the call's prompt starts with everything this segment holds. */
  extendedBy(prompt: ArrayLike<number>): boolean {
    return startsWithConcat(prompt, this.promptIds, this.ids.view());
  }

  /** True when the prompt starts with everything before the last completion. */
  extendsBeforeLastCompletion(prompt: ArrayLike<number>): boolean {
    return startsWithConcat(prompt, this.promptIds, this.ids.view(), this.lastCompletionStart);
  }

  /** All tokens so far (for decoding). */
  allIds(): number[] {
    return [...this.promptIds, ...this.ids.view()];
  }

  /**
   * Appends a call whose prompt is everything this segment holds followed by `prompt.slice(from)`:
   * the whole prompt with `from = tokenCount` (check `extendedBy` first), or a stored delta's suffix.
   */
  merge(call: TokenCall, prompt: ArrayLike<number>, from: number): void {
    const observation = prompt.length - from;
    this.ids.append(prompt, from);
    this.mask.appendRepeated(0, observation);
    this.logprobs.appendRepeated(0, observation);
    this.appendCompletion(call);
  }

  private appendCompletion(call: TokenCall): void {
    this.lastCompletionStart = this.ids.length;
    this.ids.append(call.completionTokenIds);
    this.mask.appendRepeated(1, call.completionTokenIds.length);
    this.logprobs.append(call.logprobs);
    this.callSeqs.push(call.seq);
    this.lastCall = call;
  }
}
