import { tokenText } from '../families/chatml/tokenizer.js';
import type { RecordedCall } from '../records/call.js';
import { RolloutTrajectoryBuilder, type RolloutContext } from '../trajectory/builder.js';
import { fromRecordedCall } from '../trajectory/trajectory-call.js';
import type { TrajectorySample } from '../trajectory/types.js';

/**
 * One token of a call as training sees it: `prompt` (the sample's prompt, never trained on),
 * `observation` (mask 0: tool results and user turns between model turns), `model` (mask 1, with
 * its logprob: tokens the policy generated).
 */
export interface TokenCell {
  id: number;
  kind: 'prompt' | 'observation' | 'model';
  logprob?: number;
  /** The token's text when the run used the simulated model (its tokenizer is known); absent otherwise. */
  text?: string;
}

export interface CallTokens {
  /** Which training sample (segment) holds this call, or why it is in none. */
  segment: number | null;
  excluded: string | null;
  decoded: boolean;
  tokens: TokenCell[];
}

/**
 * The token view of every call of a rollout, cut from the very samples the exporters write: call k's
 * view is its segment up to the end of call k's completion (the segment's tokens then are exactly call
 * k's prompt + completion, since a merged call's prompt extends the whole segment).
 */
export async function rolloutTokenViews(calls: RecordedCall[], context: RolloutContext): Promise<Map<number, CallTokens>> {
  const builder = new RolloutTrajectoryBuilder(context);
  for (const call of calls) await builder.add(fromRecordedCall(call));
  const { samples } = await builder.finish();
  const sampleOf = new Map<number, TrajectorySample>();
  for (const s of samples) for (const seq of s.extra_fields.call_seqs) sampleOf.set(seq, s);
  const decode = context.simulated;
  const views = new Map<number, CallTokens>();
  for (const call of calls) {
    const sample = sampleOf.get(call.seq);
    if (sample && call.promptTokenIds && call.completionTokenIds) {
      const end = call.promptTokenIds.length + call.completionTokenIds.length - sample.prompt_ids.length;
      const tokens: TokenCell[] = Array.from(sample.prompt_ids, (id) => cell(id, 'prompt', undefined, decode));
      for (let i = 0; i < end; i++) {
        const model = sample.response_mask[i] === 1;
        tokens.push(cell(sample.response_ids[i]!, model ? 'model' : 'observation', model ? sample.response_logprobs[i] : undefined, decode));
      }
      views.set(call.seq, { segment: sample.segment, excluded: null, decoded: decode, tokens });
    } else {
      // Not in any sample (helper, failed, no token ids): the raw ids as recorded.
      const tokens: TokenCell[] = Array.from(call.promptTokenIds ?? [], (id) => cell(id, 'prompt', undefined, decode));
      (call.completionTokenIds ?? []).forEach((id, i) => tokens.push(cell(id, 'model', call.logprobs?.[i], decode)));
      views.set(call.seq, { segment: null, excluded: exclusionReason(call), decoded: decode, tokens });
    }
  }
  return views;
}

function cell(id: number, kind: TokenCell['kind'], logprob: number | undefined, decode: boolean): TokenCell {
  const c: TokenCell = { id, kind };
  if (logprob !== undefined) c.logprob = logprob;
  if (decode) {
    try {
      c.text = tokenText(id);
    } catch {
      c.text = `⟨${id}⟩`; // not a sim token id: shown as the id
    }
  }
  return c;
}

function exclusionReason(call: RecordedCall): string {
  if (call.label !== 'policy') return `${call.label} call: not part of the training samples`;
  if (call.status !== 200 || call.error) return `failed call (status ${call.status}): not part of the training samples`;
  if (call.missingTokenIds || !call.promptTokenIds || !call.completionTokenIds) return 'the upstream returned no token ids';
  if (!call.logprobs) return 'the upstream returned no logprobs';
  return 'not part of any sample';
}
