import { protocolRecords } from '../proxy/protocols/registry.js';
import type { CallLabel, RecordedCall } from '../records/call.js';

/** A stretch of a rollout's time, in milliseconds from its start. */
export interface Span {
  start: number;
  end: number;
}

export interface PhaseSpan extends Span {
  name: string;
}

export interface CallSpan extends Span {
  seq: number;
  label: CallLabel;
  status: number;
}

/** The harness running the tools one answer called, until its next model call (or the agent's end). */
export interface ToolRunSpan extends Span {
  afterSeq: number;
  tools: string[];
}

export interface RolloutTimeline {
  /** Epoch milliseconds everything counts from. */
  origin: number;
  /** Milliseconds from the origin to the end of the last thing on it. */
  length: number;
  phases: PhaseSpan[];
  calls: CallSpan[];
  toolRuns: ToolRunSpan[];
}

/** The phases in the order a rollout runs them (collect comes after the grader, inside the verify exec's wake). */
export const PHASE_ORDER = ['image', 'start', 'environment', 'setup', 'agent', 'verify', 'collect', 'teardown'] as const;

type TimelineCall = Pick<RecordedCall, 'seq' | 'label' | 'status' | 'startedAt' | 'durationMs' | 'protocol' | 'response'>;

/**
 * Where a rollout's phases, model calls and tool runs lie in time. Phases are stored as durations
 * (`phases_ms`), so they are laid end to end from the rollout's start, anchored where its events say
 * when a phase ended: the `phase` event that names the started container (end of start) and the `agent`
 * event (end of agent). Calls carry their own start and duration; a tool run fills the time between an
 * answer with tool calls and the next policy call.
 */
export function rolloutTimeline(
  rollout: { startedAt: number | null; createdAt: number; phases: Record<string, number> },
  events: readonly { ts: number; kind: string; message: string }[],
  calls: readonly TimelineCall[],
): RolloutTimeline {
  const origin = rollout.startedAt ?? calls[0]?.startedAt ?? rollout.createdAt;
  const anchors: Record<string, number> = {};
  const started = events.find((e) => e.kind === 'phase' && e.message.startsWith('started container'));
  if (started) anchors.start = started.ts - origin;
  const agentEnded = events.find((e) => e.kind === 'agent');
  if (agentEnded) anchors.agent = agentEnded.ts - origin;

  const phases: PhaseSpan[] = [];
  let cursor = 0;
  for (const name of PHASE_ORDER) {
    const ms = rollout.phases[name];
    if (typeof ms !== 'number') continue;
    // an anchored phase ends at its event, but never starts before the phase ahead of it ended
    const start = anchors[name] !== undefined ? Math.max(cursor, anchors[name]! - ms) : cursor;
    phases.push({ name, start, end: start + ms });
    cursor = start + ms;
  }

  const policy = [...calls].sort((x, y) => x.startedAt - y.startedAt);
  const callSpans = policy.map((c) => ({
    seq: c.seq,
    label: c.label,
    status: c.status,
    start: c.startedAt - origin,
    end: c.startedAt - origin + c.durationMs,
  }));
  const agent = phases.find((p) => p.name === 'agent');
  const answered = policy.filter((c) => c.label === 'policy');
  const toolRuns = answered.flatMap((c, i): ToolRunSpan[] => {
    const tools = protocolRecords(c.protocol)
      .answerView(c.response)
      .toolCalls.map((t) => t.name);
    const end = answered[i + 1] ? answered[i + 1]!.startedAt - origin : agent?.end;
    const start = c.startedAt - origin + c.durationMs;
    return tools.length > 0 && end !== undefined && end > start ? [{ afterSeq: c.seq, tools, start, end }] : [];
  });
  const length = Math.max(cursor, ...callSpans.map((c) => c.end), ...toolRuns.map((t) => t.end), 1);
  return { origin, length, phases, calls: callSpans, toolRuns };
}
