import type { BehaviourCall } from './behaviour-call.js';
import { planProgress } from './plan-completion.js';
import { toolAction, type ToolAction } from './tool-action.js';
import { toolFailed } from './tool-failure.js';
import { rolloutTools, type ToolStep } from './tool-steps.js';

/** How many tool calls after a failed one a retry of the same intent may come and still count as recovering from it. */
export const RECOVERY_WINDOW = 3;

/** One rollout as the behaviour metrics read it: what is stored of it. */
export interface BehaviourRolloutInput {
  id: string;
  taskId: string;
  harness: string;
  reward: number | null;
  /** reward.json's fields (partial-credit checks), when the grader wrote JSON. */
  rewardDetails: unknown;
  /** Milliseconds per phase (`phases_ms`). */
  phases: Record<string, number>;
  calls: readonly BehaviourCall[];
  /** The plan's steps, when the task's task.toml lists them (`[metadata] steps`). */
  planSteps?: readonly string[];
}

/** What a rollout did, beyond its reward (docs/behaviour.md defines each). */
export interface RolloutBehaviour {
  rolloutId: string;
  taskId: string;
  harness: string;
  reward: number | null;
  /** Policy calls answered: the model's turns. */
  turns: number;
  toolCalls: number;
  promptTokens: number | null;
  completionTokens: number | null;
  /** The agent phase's time per turn (without phases: first call to last, per turn). */
  msPerTurn: number | null;
  /** A check (a test, a read-back, a diff, a listing) ran after the last write; null when nothing was written. */
  selfVerified: boolean | null;
  toolsOffered: number;
  /** Calls per tool name. */
  toolsUsed: Record<string, number>;
  /** Distinct tools used / tools offered; null when none were offered. */
  toolCoverage: number | null;
  planSteps: number | null;
  planStepsReached: number | null;
  planCompletion: number | null;
  /** Tool calls whose result says they failed. */
  toolErrors: number;
  /** Of those: retried with the same intent, successfully, within RECOVERY_WINDOW calls. */
  recovered: number;
  /** Retried with the same intent within the window, failing every time. */
  repeatedErrors: number;
  /** Not retried within the window: given up, or tried another way. */
  abandoned: number;
  /** recovered / toolErrors; null without errors. */
  errorRecovery: number | null;
  /** Tool calls that repeat an earlier call of the rollout exactly (same tool, same arguments) with nothing written in between. */
  repeatedCalls: number;
}

export function rolloutBehaviour(rollout: BehaviourRolloutInput): RolloutBehaviour {
  const policy = rollout.calls.filter((c) => c.label === 'policy' && c.status === 200);
  const tools = rolloutTools(rollout.calls);
  const actions = tools.steps.map((s) => toolAction(s.call));
  const toolsUsed: Record<string, number> = {};
  for (const s of tools.steps) toolsUsed[s.call.name] = (toolsUsed[s.call.name] ?? 0) + 1;
  const used = tools.offered.length > 0 ? Object.keys(toolsUsed).filter((name) => tools.offered.includes(name)).length : 0;
  const recovery = errorRecovery(tools.steps, actions);
  const plan = planProgress(rollout.rewardDetails, rollout.planSteps);
  return {
    rolloutId: rollout.id,
    taskId: rollout.taskId,
    harness: rollout.harness,
    reward: rollout.reward,
    turns: policy.length,
    toolCalls: tools.steps.length,
    promptTokens: sumOrNull(policy.map((c) => c.promptTokens)),
    completionTokens: sumOrNull(policy.map((c) => c.completionTokens)),
    msPerTurn: msPerTurn(rollout.phases, policy),
    selfVerified: selfVerified(actions),
    toolsOffered: tools.offered.length,
    toolsUsed,
    toolCoverage: tools.offered.length > 0 ? used / tools.offered.length : null,
    planSteps: plan?.steps ?? null,
    planStepsReached: plan?.reached ?? null,
    planCompletion: plan?.completion ?? null,
    ...recovery,
    errorRecovery: recovery.toolErrors > 0 ? recovery.recovered / recovery.toolErrors : null,
    repeatedCalls: repeatedCalls(actions),
  };
}

/** True when a check comes after the last write (within the same call counts: `… > out && cat out`). */
function selfVerified(actions: readonly ToolAction[]): boolean | null {
  const effects = actions.flatMap((a) => a.effects);
  const lastWrite = effects.lastIndexOf('write');
  if (lastWrite < 0) return null;
  return effects.indexOf('check', lastWrite) > lastWrite;
}

function errorRecovery(steps: readonly ToolStep[], actions: readonly ToolAction[]) {
  const out = { toolErrors: 0, recovered: 0, repeatedErrors: 0, abandoned: 0 };
  const failed = steps.map((s) => s.result !== undefined && toolFailed(s.result));
  failed.forEach((isFailure, i) => {
    if (!isFailure) return;
    out.toolErrors++;
    const retries = actions
      .slice(i + 1, i + 1 + RECOVERY_WINDOW)
      .map((a, j) => ({ a, j: i + 1 + j }))
      .filter(({ a }) => a.intent === actions[i]!.intent);
    if (retries.some(({ j }) => steps[j]!.result !== undefined && !failed[j])) out.recovered++;
    else if (retries.length > 0) out.repeatedErrors++;
    else out.abandoned++;
  });
  return out;
}

function repeatedCalls(actions: readonly ToolAction[]): number {
  // signatures seen since the last write: a write may make the same call do something new
  const seen = new Set<string>();
  let repeats = 0;
  for (const action of actions) {
    if (seen.has(action.signature)) repeats++;
    if (action.effects.includes('write')) seen.clear();
    seen.add(action.signature);
  }
  return repeats;
}

function msPerTurn(phases: Record<string, number>, policy: readonly BehaviourCall[]): number | null {
  if (policy.length === 0) return null;
  if (typeof phases.agent === 'number') return phases.agent / policy.length;
  const first = Math.min(...policy.map((c) => c.startedAt));
  const last = Math.max(...policy.map((c) => c.startedAt + c.durationMs));
  return (last - first) / policy.length;
}

function sumOrNull(values: readonly (number | null)[]): number | null {
  return values.length > 0 && values.every((v) => v !== null) ? values.reduce<number>((a, b) => a + b!, 0) : null;
}
