import { PromptRebuilder, type StoredPrompt } from './prompt-delta.js';
import type { RecordedCall } from '../records/call.js';

/** Call rows as the store reads them for training data: which columns, and how rows are completed. */

export interface CallRow {
  rollout_id: string;
  seq: number;
  label: RecordedCall['label'];
  protocol: RecordedCall['protocol'];
  model: string;
  stream: number;
  request: string;
  response: string | null;
  status: number;
  error: string | null;
  prompt_ids: Buffer | null;
  completion_ids: Buffer | null;
  logprobs: Buffer | null;
  finish_reason: string | null;
  upstream: string;
  started_at: number;
  ttfb_ms: number | null;
  duration_ms: number;
  missing_token_ids: number;
  /** Delta storage (see prompt-delta.ts): when set, prompt_ids holds only the tokens after the shared prefix. */
  prompt_base_seq: number | null;
  prompt_shared_len: number | null;
  /** Delta storage (see request-delta.ts): when set, request holds only the text after the shared prefix. Rows stored whole since then have request_shared_len 0. */
  request_base_seq: number | null;
  request_shared_len: number | null;
  /** 1 when the response text contains `weight_version` (null when there is no response). */
  response_mentions_weight_version: number | null;
  /** 1 when the stored request piece contains `image`; null for rows stored whole before request deltas. */
  request_piece_mentions_image: number | null;
  token_mode: 'chat' | 'token_in';
  family: string | null;
  /** The weight version current at the proxy when the engine answered; null when none was set. */
  weight_version: string | null;
}

const STORED_CALL_FIELDS = [
  'rollout_id',
  'seq',
  'label',
  'protocol',
  'status',
  'error',
  'finish_reason',
  'missing_token_ids',
  'prompt_base_seq',
  'prompt_shared_len',
  'request_base_seq',
  'response_mentions_weight_version',
  'request_piece_mentions_image',
  'weight_version',
  'completion_ids',
  'logprobs',
  'prompt_ids',
] as const;
/**
 * Only what training data needs, none of it behind the response and request in the row (see the
 * migrations): every column read costs time when a whole run is exported. Two words the exporter
 * looks for were noted when the call was stored, so that it reads a response or request only when it
 * may hold what it wants: `weight_version` in the response, `image` in the request's stored piece (a
 * word never spans the cut between pieces; rows stored before request deltas, whose
 * `request_shared_len` is null, have no note: their whole requests would be read).
 */
export const STORED_CALL_COLUMNS = STORED_CALL_FIELDS.join(', ');
type StoredCallColumns = Pick<CallRow, (typeof STORED_CALL_FIELDS)[number]>;

/**
 * A call row as `callPagesOf` reads it: the columns training data needs (not the request nor the
 * response: see `callRequestJson`, `callResponseJson`), with `prompt_ids` the whole prompt, or `problem` naming why it could not be
 * rebuilt. `stored_prompt_ids` is the blob as stored: the suffix after `prompt_shared_len` tokens of
 * call `prompt_base_seq` when that is set. `request_may_mention_image` is false when no stored piece
 * the request is made of contains `image`, null when that is not known.
 */
export type StoredCallRow = StoredCallColumns & {
  problem?: string;
  stored_prompt_ids?: Buffer | null;
  /** When set, the whole prompt is rebuilt by this on demand (a string names why it cannot be), and `prompt_ids` is the blob as stored. */
  whole_prompt?: () => Buffer | null | string;
  request_may_mention_image?: boolean | null;
};

/** The small fields of a call row in `callsOfRollouts`, in this order, then the byte lengths of its three blobs. */
export const GROUPED_FIELDS = [
  'seq',
  'label',
  'protocol',
  'status',
  'error',
  'finish_reason',
  'missing_token_ids',
  'prompt_base_seq',
  'prompt_shared_len',
  'request_base_seq',
  'response_mentions_weight_version',
  'request_piece_mentions_image',
  'octet_length(completion_ids)',
  'octet_length(logprobs)',
  'octet_length(prompt_ids)',
  'weight_version',
];
type GroupedFields = [
  number,
  CallRow['label'],
  CallRow['protocol'],
  number,
  string | null,
  string | null,
  number,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string | null,
];

export interface CallGroupRow {
  rollout_id: string;
  fields: string;
  completion_ids: Buffer | null;
  logprobs: Buffer | null;
  prompt_ids: Buffer | null;
}

/** The call rows of one rollout from its group: blobs are views into the concatenated ones. */
export function ungroup(group: CallGroupRow): StoredCallRow[] {
  const offsets = [0, 0, 0];
  const slice = (blob: Buffer | null, column: number, length: number | null): Buffer | null => {
    if (length === null || !blob) return null;
    const start = offsets[column]!;
    offsets[column] = start + length;
    return blob.subarray(start, start + length);
  };
  const rows: StoredCallRow[] = (JSON.parse(group.fields) as GroupedFields[]).map((f) => ({
    rollout_id: group.rollout_id,
    seq: f[0],
    label: f[1],
    protocol: f[2],
    status: f[3],
    error: f[4],
    finish_reason: f[5],
    missing_token_ids: f[6],
    prompt_base_seq: f[7],
    prompt_shared_len: f[8],
    request_base_seq: f[9],
    response_mentions_weight_version: f[10],
    request_piece_mentions_image: f[11],
    completion_ids: slice(group.completion_ids, 0, f[12]),
    logprobs: slice(group.logprobs, 1, f[13]),
    prompt_ids: slice(group.prompt_ids, 2, f[14]),
    weight_version: f[15] ?? null,
  }));
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.seq <= rows[i - 1]!.seq) return rows.sort((a, b) => a.seq - b.seq);
  }
  return rows;
}

/** Built prompts kept per rollout, so that a walk down a chain of deltas stops early. */
const KEPT_PROMPTS = 4;

/** Whole prompts of a rollout whose rows are all in memory, rebuilt on demand from the chain of deltas. */
export class RolloutPrompts {
  private readonly bySeq = new Map<number, StoredCallRow>();
  private readonly built = new Map<number, Buffer | null | string>();

  constructor(rows: StoredCallRow[]) {
    for (const row of rows) this.bySeq.set(row.seq, row);
  }

  /** The whole prompt blob of call `seq`, or a string naming why it cannot be rebuilt. */
  whole(seq: number): Buffer | null | string {
    const kept = this.built.get(seq);
    if (kept !== undefined) return kept;
    // down the chain to a row stored whole or a prompt built before, then forward
    const chain: StoredCallRow[] = [];
    let start: { seq: number; prompt: Buffer | null } | undefined;
    for (let at: number | null = seq; at !== null;) {
      const row = this.bySeq.get(at);
      if (!row) break; // the rebuilder names the missing base
      const built = this.built.get(at);
      if (built !== undefined && typeof built !== 'string' && at !== seq) {
        start = { seq: at, prompt: built };
        break;
      }
      chain.push(row);
      at = row.prompt_base_seq !== null && row.prompt_base_seq < row.seq ? row.prompt_base_seq : null;
    }
    const rebuilder = new PromptRebuilder();
    if (start) {
      const base = this.bySeq.get(start.seq)!;
      rebuilder.rebuild({ seq: start.seq, promptIds: start.prompt, completionIds: base.completion_ids, baseSeq: null, sharedLen: null });
    }
    let prompt: Buffer | null | string = null;
    for (let i = chain.length - 1; i >= 0; i--)
      prompt = rebuilder.rebuild(storedPrompt({ ...chain[i]!, prompt_ids: chain[i]!.stored_prompt_ids ?? chain[i]!.prompt_ids }));
    if (this.built.size >= KEPT_PROMPTS) this.built.delete(this.built.keys().next().value!);
    this.built.set(seq, prompt);
    return prompt;
  }
}

/** Completes the rows of one rollout fed in seq order: whole prompts rebuilt, and what the request may mention. */
export class RowCompleter {
  private readonly prompts: PromptRebuilder;
  private readonly images = new RequestImages();

  constructor(lastUse: Map<number, number>) {
    this.prompts = new PromptRebuilder(lastUse);
  }

  complete(row: StoredCallRow): void {
    const prompt = this.prompts.rebuild(storedPrompt(row));
    // The row objects are the reader's own: completed in place rather than copied.
    if (typeof prompt === 'string') row.problem = prompt;
    else [row.stored_prompt_ids, row.prompt_ids] = [row.prompt_ids, prompt];
    this.images.complete(row);
  }
}

/** Whether a request may mention `image`, from the stored pieces of its chain, for rows fed in seq order. */
export class RequestImages {
  private readonly images = new Map<number, boolean | null>();

  complete(row: StoredCallRow): void {
    const piece = row.request_piece_mentions_image === null ? null : row.request_piece_mentions_image === 1;
    const base = row.request_base_seq === null ? false : (this.images.get(row.request_base_seq) ?? null);
    const image = piece === true || base === true ? true : piece === null || base === null ? null : false;
    row.request_may_mention_image = image;
    this.images.set(row.seq, image);
  }
}

/** Base seq → the last seq whose prompt refers to it, from rows in seq order. */
export function promptLastUses(rows: Pick<CallRow, 'seq' | 'prompt_base_seq'>[]): Map<number, number> {
  const lastUse = new Map<number, number>();
  for (const row of rows) if (row.prompt_base_seq !== null) lastUse.set(row.prompt_base_seq, row.seq);
  return lastUse;
}

export function storedPrompt(row: Pick<CallRow, 'seq' | 'prompt_ids' | 'completion_ids' | 'prompt_base_seq' | 'prompt_shared_len'>): StoredPrompt {
  return { seq: row.seq, promptIds: row.prompt_ids, completionIds: row.completion_ids, baseSeq: row.prompt_base_seq, sharedLen: row.prompt_shared_len };
}
