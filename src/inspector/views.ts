import type { RolloutRecord, RunRecord } from '../store/store.js';
import type { RecordedCall } from '../records/call.js';
import { summarize, type RunSummary } from '../analytics/run-summary.js';
import { readRunBehaviour } from '../analytics/behaviour/run-behaviour.js';
import { summarizeBehaviour, type BehaviourSummary } from '../analytics/behaviour/behaviour-summary.js';
import type { RolloutBehaviour } from '../analytics/behaviour/rollout-behaviour.js';
import { comparisonCharts, runCharts, type Chart } from '../analytics/charts/run-charts.js';
import { timelineChart } from '../analytics/charts/timeline-chart.js';
import { compareRuns, type RunComparison } from '../analytics/compare/compare-runs.js';
import { rolloutTimeline, type RolloutTimeline } from '../analytics/rollout-timeline.js';
import { listArtifacts, type ArtifactFile } from './artifacts.js';
import type { AnswerView } from '../proxy/protocols/types.js';
import { protocolRecords } from '../proxy/protocols/registry.js';
import { answerOf, imagesIn, newMessages } from '../trajectory/call-content.js';
import { artifactsDir, type RunFolder } from './run-folder.js';
import { rolloutTokenViews, type CallTokens } from './token-view.js';

/** What the inspector's pages show, as JSON. Every view is built from the store and the artifacts folder alone. */

export interface RunInfo {
  id: string;
  status: RunRecord['status'];
  createdAt: number;
  finishedAt: number | null;
  harness: string;
  upstream: string;
  simulated: boolean;
  k: number;
  passThreshold: number;
}

export function runInfo(run: RunRecord): RunInfo {
  const config = ((run.config as { config?: Record<string, unknown> } | null)?.config ?? {}) as Record<string, unknown>;
  const model = (config.model ?? {}) as { upstream?: unknown };
  const upstream = typeof model.upstream === 'string' ? model.upstream : '';
  return {
    id: run.id,
    status: run.status,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    harness: typeof config.harness === 'string' ? config.harness : '',
    upstream,
    simulated: upstream.startsWith('sim:'),
    k: typeof config.rollouts_per_task === 'number' ? config.rollouts_per_task : 1,
    passThreshold: typeof config.pass_threshold === 'number' ? config.pass_threshold : 1,
  };
}

export interface RolloutRow extends RolloutRecord {
  calls: number;
}

export interface RunView {
  run: RunInfo;
  summary: RunSummary;
  rollouts: RolloutRow[];
}

export async function runsView(
  folder: RunFolder,
): Promise<{ dir: string; runs: (RunInfo & { rollouts: number; meanReward: number | null; errors: number })[] }> {
  const runs = [];
  for (const run of await folder.store.listRuns()) {
    const rollouts = await folder.store.currentRollouts(run.id);
    const rewards = rollouts.map((r) => r.reward).filter((x): x is number => x !== null);
    runs.push({
      ...runInfo(run),
      rollouts: rollouts.length,
      meanReward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null,
      errors: rollouts.filter((r) => r.errorType).length,
    });
  }
  return { dir: folder.dir, runs };
}

export async function runView(folder: RunFolder, runId: string): Promise<RunView | undefined> {
  const run = await folder.store.getRun(runId);
  if (!run) return undefined;
  const info = runInfo(run);
  const rollouts = await folder.store.currentRollouts(runId);
  const counts = await folder.store.countCalls(rollouts.map((r) => r.id));
  const summary = summarize(rollouts, {
    runId,
    harness: info.harness,
    k: info.k,
    passThreshold: info.passThreshold,
    simulated: info.simulated,
    wallTimeSec: ((run.finishedAt ?? Date.now()) - run.createdAt) / 1000,
  });
  return { run: info, summary, rollouts: rollouts.map((r) => ({ ...r, calls: counts.get(r.id) ?? 0 })) };
}

/** The behaviour of the folder's rollouts that have ended, computed once for the inspector's life. */
const endedRollouts = new WeakMap<RunFolder, Map<string, RolloutBehaviour>>();

function runBehaviourOf(folder: RunFolder, run: RunRecord) {
  if (!endedRollouts.has(folder)) endedRollouts.set(folder, new Map());
  return readRunBehaviour(folder.store, run, endedRollouts.get(folder));
}

/** A run's behaviour per task, harness and overall (docs/behaviour.md), and its charts. */
export async function behaviourView(folder: RunFolder, runId: string): Promise<{ summary: BehaviourSummary; charts: Chart[] } | undefined> {
  const run = await folder.store.getRun(runId);
  if (!run) return undefined;
  const summary = summarizeBehaviour(await runBehaviourOf(folder, run));
  return { summary, charts: runCharts(summary) };
}

/** Two runs of the folder compared (rollout links relative: this inspector serves both), and the comparison's paired-bar charts. */
export async function compareView(folder: RunFolder, a: string, b: string): Promise<{ comparison: RunComparison; charts: Chart[] } | string> {
  const [runA, runB] = [await folder.store.getRun(a), await folder.store.getRun(b)];
  if (!runA || !runB) return `no run ${!runA ? a : b} in ${folder.dir}`;
  const comparison = compareRuns(await runBehaviourOf(folder, runA), await runBehaviourOf(folder, runB));
  return { comparison, charts: comparisonCharts(comparison) };
}

/** What both the rollout page's list and the call page show of a call. */
export type CallSummary = Pick<RecordedCall, 'seq' | 'label' | 'protocol' | 'model' | 'status' | 'error' | 'durationMs' | 'ttfbMs' | 'finishReason'> & {
  answer: AnswerView;
};

function callSummary(call: RecordedCall): CallSummary {
  const { seq, label, protocol, model, status, error, durationMs, ttfbMs, finishReason } = call;
  return { seq, label, protocol, model, status, error, durationMs, ttfbMs, finishReason, answer: answerOf(call.response, protocol) };
}

export interface CallRow extends CallSummary {
  startedAt: number;
  promptTokens: number | null;
  completionTokens: number | null;
  images: number;
}

export interface RolloutView {
  rollout: RolloutRecord;
  run: RunInfo;
  artifactsDir: string;
  artifacts: ArtifactFile[];
  calls: CallRow[];
  events: { ts: number; kind: string; message: string }[];
  children: RolloutRecord[];
  /** Where its phases, calls and tool runs lie in time, and that drawn as SVG. */
  timeline: RolloutTimeline & { svg: string };
  /** The noVNC live view of a browser environment, when the rollout recorded one (an event of kind `live_view` whose message is the URL). */
  liveViewUrl: string | null;
}

export async function rolloutView(folder: RunFolder, rolloutId: string): Promise<RolloutView | undefined> {
  const rollout = await folder.store.getRollout(rolloutId);
  if (!rollout) return undefined;
  const run = await folder.store.getRun(rollout.runId);
  if (!run) return undefined;
  const calls = await folder.store.listCalls(rolloutId);
  const events = await folder.store.listEvents(rolloutId);
  const dir = artifactsDir(folder.dir, rollout);
  const liveView = [...events].reverse().find((e) => e.kind === 'live_view');
  const timeline = rolloutTimeline(rollout, events, calls);
  return {
    rollout,
    run: runInfo(run),
    artifactsDir: dir,
    artifacts: listArtifacts(dir),
    calls: calls.map((c, i) => ({
      ...callSummary(c),
      startedAt: c.startedAt,
      promptTokens: c.promptTokenIds?.length ?? null,
      completionTokens: c.completionTokenIds?.length ?? null,
      images: imagesIn(newMessages(c, calls[i - 1]), c.protocol).length,
    })),
    events,
    children: await folder.store.childrenOf(rolloutId),
    timeline: { ...timeline, svg: timelineChart(timeline) },
    liveViewUrl: liveView && /^https?:\/\//.test(liveView.message) ? liveView.message : null,
  };
}

export interface CallView extends CallSummary {
  upstream: string;
  request: unknown;
  response: unknown;
  /** Messages this request adds to the previous call's conversation: the tool results (observations) the harness sent back. */
  newMessages: unknown[];
  images: string[];
  tokens: CallTokens;
  /** The fork editor's start: the answer in its protocol's own shape, and how to write one. */
  fork: { answer: unknown; shape: string };
}

export async function callView(folder: RunFolder, rolloutId: string, seq: number): Promise<CallView | undefined> {
  const rollout = await folder.store.getRollout(rolloutId);
  const run = rollout && (await folder.store.getRun(rollout.runId));
  if (!rollout || !run) return undefined;
  const calls = await folder.store.listCalls(rolloutId);
  const index = calls.findIndex((c) => c.seq === seq);
  const call = calls[index];
  if (!call) return undefined;
  const info = runInfo(run);
  const tokens = await rolloutTokenViews(calls.slice(0, index + 1), {
    runId: run.id,
    rolloutId,
    taskId: rollout.taskId,
    sampleIndex: rollout.sampleIndex,
    harness: rollout.harness,
    reward: rollout.reward,
    simulated: info.simulated,
  });
  const added = newMessages(call, calls[index - 1]);
  return {
    ...callSummary(call),
    upstream: call.upstream,
    request: call.request,
    response: call.response,
    newMessages: added,
    images: imagesIn(added, call.protocol),
    tokens: tokens.get(seq)!,
    fork: { answer: protocolRecords(call.protocol).editableAnswer(call.response), shape: protocolRecords(call.protocol).answerShape },
  };
}
