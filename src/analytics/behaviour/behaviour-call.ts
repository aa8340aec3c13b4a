import { protocolRecords } from '../../proxy/protocols/registry.js';
import type { RecordedCall } from '../../records/call.js';

/** What the behaviour metrics read of one recorded model call. */
export type BehaviourCall = Pick<RecordedCall, 'seq' | 'label' | 'protocol' | 'request' | 'response' | 'status' | 'startedAt' | 'durationMs'> & {
  /** Tokens of the prompt and of the answer: the recorded token ids, else the answer's own `usage`; null when neither is there. */
  promptTokens: number | null;
  completionTokens: number | null;
};

/** A stored call as the behaviour metrics read it. */
export function behaviourCall(call: RecordedCall): BehaviourCall {
  const usage = call.promptTokenIds && call.completionTokenIds ? undefined : protocolRecords(call.protocol).usage(call.response);
  return {
    seq: call.seq,
    label: call.label,
    protocol: call.protocol,
    request: call.request,
    response: call.response,
    status: call.status,
    startedAt: call.startedAt,
    durationMs: call.durationMs,
    promptTokens: call.promptTokenIds?.length ?? usage?.prompt ?? null,
    completionTokens: call.completionTokenIds?.length ?? usage?.completion ?? null,
  };
}
