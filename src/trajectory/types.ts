/** Token-level training samples built from the recorded calls of one rollout. */

/**
 * Why a segment started when it is not the rollout's first:
 * - `template_mismatch`: the conversation only grew, but the prompt renders the earlier turns differently;
 * - `retokenization`: the text of the earlier turns is the same, their token ids are not (a generated
 *   answer re-encoded into other ids);
 * - `history_edited`: earlier messages were removed or rewritten (compaction, injected reminders,
 *   dropped reasoning);
 * - `helper_call`: the conversation continues one that a helper call (excluded) started;
 * - `sub_agent`: a conversation that extends no open one (another system prompt, a sub-agent);
 * - `missing_token_ids`: the previous call of this conversation came back without usable token ids or logprobs;
 * - `weight_update`: the conversation only grew, but the policy's weights were updated between the two calls:
 *   a sample never mixes two weight versions.
 */
export const BREAK_REASONS = [
  'template_mismatch',
  'retokenization',
  'history_edited',
  'helper_call',
  'sub_agent',
  'missing_token_ids',
  'weight_update',
] as const;
export type BreakReason = (typeof BREAK_REASONS)[number];

/** Why a recorded call is not part of any sample. */
export const EXCLUSION_REASONS = ['missing_token_ids', 'missing_logprobs', 'failed', 'helper', 'count_tokens'] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export type ExclusionCounts = Record<ExclusionReason, number>;

/**
 * An image the prompt shows, as a reference: where it sits in the last call's request messages, and its URL or
 * (for data URLs) a hash. An image inside a tool result (an MCP screenshot in Anthropic's `tool_result` block) has
 * `item_index` too: its place in that block's content; in a Responses `function_call_output`, part_index counts
 * its `output` items.
 */
export interface ImageRef {
  message_index: number;
  part_index: number;
  item_index?: number;
  url_or_hash: string;
}

/**
 * An image of a sample: where it sits in the last call's request messages (as `ImageRef`), its URL as sent (inline
 * images as data URLs: the bytes), and where its placeholder starts in `prompt_ids` followed by `response_ids`
 * (null when the tokenizer's placeholder token is not known: see `image-placeholders.ts`).
 */
export interface SampleImage {
  message_index: number;
  part_index: number;
  item_index?: number;
  url: string;
  token_offset: number | null;
}

export interface MultiModalData<Image = SampleImage> {
  images: Image[];
}

/**
 * One training sample, shaped like veRL's `AgentLoopOutput`. `response_ids`, `response_mask` and
 * `response_logprobs` always have the same length; mask 1 marks tokens the model generated (with their
 * logprobs), mask 0 marks tool/user observations inserted between turns (logprob 0.0).
 * Token sequences are typed arrays, as stored and as a trainer holds them (tensors): a sample of a
 * long conversation is tens of thousands of numbers. As JSON they are plain arrays (`sampleJson`).
 */
export interface TrajectorySample {
  prompt_ids: Int32Array;
  response_ids: Int32Array;
  response_mask: Uint8Array;
  response_logprobs: Float64Array;
  /** The rollout's reward; null when the grader gave none. */
  reward_score: number | null;
  /** Model calls merged into this sample. */
  num_turns: number;
  /** Task id: the GRPO group (the rollout id for a rollout recorded for no task, a group of its own). */
  uid: string;
  rollout_id: string;
  /** 0, 1, 2 … in the order the segments of the rollout started. */
  segment: number;
  /** Null for the rollout's first segment. */
  break_reason: BreakReason | null;
  harness: string;
  /**
   * Version of the policy weights that served every call of the sample: the proxy's when it was set (a resume
   * after an update), else the upstream's when it reported one, else null.
   */
  weight_version: string | null;
  /** Finish reason of the last call merged. */
  finish_reason: string | null;
  multi_modal_data: MultiModalData | null;
  extra_fields: SampleExtraFields;
}

export interface SampleExtraFields {
  /** Sequence numbers of the calls merged, in order. */
  call_seqs: number[];
  /** True when the calls were served by the simulated model (no real LLM). */
  simulated: boolean;
  /** Calls of the rollout left out of every sample, by reason (the same for every sample of the rollout). */
  excluded_calls: ExclusionCounts;
  run_id: string;
  sample_index: number;
}

/** A sample as JSON has it: token sequences as plain arrays. */
export type JsonSample = Omit<TrajectorySample, 'prompt_ids' | 'response_ids' | 'response_mask' | 'response_logprobs'> & {
  prompt_ids: number[];
  response_ids: number[];
  response_mask: number[];
  response_logprobs: number[];
};

/** The sample with plain arrays, for `JSON.stringify` (which writes a typed array as an object). */
export function sampleJson(sample: TrajectorySample): JsonSample {
  return {
    ...sample,
    prompt_ids: Array.from(sample.prompt_ids),
    response_ids: Array.from(sample.response_ids),
    response_mask: Array.from(sample.response_mask),
    response_logprobs: Array.from(sample.response_logprobs),
  };
}

export function emptyExclusionCounts(): ExclusionCounts {
  return { missing_token_ids: 0, missing_logprobs: 0, failed: 0, helper: 0, count_tokens: 0 };
}
