import { protocolRecords } from '../../proxy/protocols/registry.js';
import type { ToolCallView, ToolResultView } from '../../proxy/protocols/types.js';
import type { BehaviourCall } from './behaviour-call.js';

/** One tool call the policy made, with the result the harness sent back for it. */
export interface ToolStep {
  /** The model call whose answer made it. */
  seq: number;
  call: ToolCallView;
  /** Undefined when no later request carries its result (the last answer's calls, when the harness stopped). */
  result: ToolResultView | undefined;
}

export interface RolloutTools {
  /** The tools the policy was offered (every policy request's tools, by name). */
  offered: string[];
  /** Every tool call of the policy's answers, in order. */
  steps: ToolStep[];
}

/**
 * A rollout's tool calls and their results, read through each call's protocol records: calls from the
 * answers, results from the requests after them (Chat `tool` messages, Responses `*_call_output` items,
 * Anthropic `tool_result` blocks). A result belongs to the call with its id, compared by letters and
 * digits alone (OpenClaw sends `call_ab12…` back as `callab12…`); a call whose id matches none takes the
 * next request's unclaimed results in order. Helper calls are left out: they do not act.
 */
export function rolloutTools(calls: readonly BehaviourCall[]): RolloutTools {
  const policy = calls.filter((c) => c.label === 'policy');
  const offered = new Set<string>();
  const byId = new Map<string, ToolResultView>();
  const resultsOf = policy.map((c) => {
    const records = protocolRecords(c.protocol);
    for (const name of records.toolNames(c.request)) offered.add(name);
    const results = records.toolResults(c.request);
    for (const result of results) if (!byId.has(idKey(result.callId))) byId.set(idKey(result.callId), result);
    return results;
  });
  const answers = policy.map((c) => protocolRecords(c.protocol).answerView(c.response).toolCalls);
  const claimed = new Set(answers.flat().map((call) => idKey(call.id)));
  const steps = policy.flatMap((c, i) => {
    const unclaimed = (resultsOf[i + 1] ?? []).filter((r) => !claimed.has(idKey(r.callId)));
    return answers[i]!.map((call) => ({ seq: c.seq, call, result: (call.id ? byId.get(idKey(call.id)) : undefined) ?? unclaimed.shift() }));
  });
  return { offered: [...offered].sort(), steps };
}

function idKey(id: string): string {
  return id.replace(/[^A-Za-z0-9]/g, '');
}
