import { protocolRecords } from '../proxy/protocols/registry.js';
import type { RecordedCall } from '../records/call.js';

/**
 * A rollout's episode as Harbor's Agent Trajectory Interchange Format (ATIF v1.7), built from the proxy's
 * records alone, so it reads the same for every harness and protocol: the instruction as the user's step,
 * then one agent step per policy call (its text, tool calls and token counts) with the tool results the
 * harness sent back in the next call as that step's observation. Graders read it at
 * /logs/agent/trajectory.json; Harbor's tooling reads it as a trial's agent/trajectory.json.
 */
export const ATIF_VERSION = 'ATIF-v1.7';

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  model_name?: string;
  message: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: { source_call_id?: string; content: string }[] };
  metrics?: { prompt_tokens?: number; completion_tokens?: number };
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name?: string };
  steps: AtifStep[];
  final_metrics: { total_prompt_tokens: number; total_completion_tokens: number; total_steps: number };
  extra?: Record<string, unknown>;
}

export function atifTrajectory(opts: {
  rolloutId: string;
  harness: string;
  harnessVersion: string;
  instruction: string;
  calls: readonly RecordedCall[];
  /** A last agent step's text: what a harness without a model says (Harbor's oracle: the solution's answer.md). */
  finalAnswer?: string;
}): AtifTrajectory {
  const policy = opts.calls.filter((c) => c.label === 'policy' && c.status === 200 && c.response !== null).sort((a, b) => a.seq - b.seq);
  const steps: AtifStep[] = [{ step_id: 1, source: 'user', message: opts.instruction }];
  let prompt = 0;
  let completion = 0;
  policy.forEach((call, i) => {
    const records = protocolRecords(call.protocol);
    const answer = records.answerView(call.response);
    const usage = records.usage(call.response);
    prompt += usage?.prompt ?? 0;
    completion += usage?.completion ?? 0;
    const step: AtifStep = {
      step_id: steps.length + 1,
      timestamp: new Date(call.startedAt).toISOString(),
      source: 'agent',
      model_name: call.model,
      message: answer.text,
    };
    if (answer.toolCalls.length) {
      step.tool_calls = answer.toolCalls.map((t) => ({ tool_call_id: t.id, function_name: t.name, arguments: argumentsObject(t.arguments) }));
      const next = policy[i + 1];
      const ids = new Set(answer.toolCalls.map((t) => t.id));
      const results = next
        ? protocolRecords(next.protocol)
            .toolResults(next.request)
            .filter((r) => ids.has(r.callId))
        : [];
      if (results.length) step.observation = { results: results.map((r) => ({ source_call_id: r.callId, content: r.output })) };
    }
    if (usage) step.metrics = { prompt_tokens: usage.prompt, completion_tokens: usage.completion };
    steps.push(step);
  });
  if (opts.finalAnswer !== undefined) steps.push({ step_id: steps.length + 1, source: 'agent', message: opts.finalAnswer });
  return {
    schema_version: ATIF_VERSION,
    session_id: opts.rolloutId,
    agent: { name: opts.harness, version: opts.harnessVersion, ...(policy[0] ? { model_name: policy[0].model } : {}) },
    steps,
    final_metrics: { total_prompt_tokens: prompt, total_completion_tokens: completion, total_steps: steps.length },
    extra: { source: 'openforge recording proxy' },
  };
}

/** ATIF's arguments are an object: JSON text that reads as one is parsed, anything else (a freeform tool's input) kept as `input`. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { input: text };
}
