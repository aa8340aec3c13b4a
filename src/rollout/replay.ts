import path from 'node:path';
import type { RolloutRecord } from '../store/store.js';
import { Store } from '../store/store.js';
import type { RecordedCall } from '../store/types.js';
import { messageKey } from '../trajectory/conversation.js';
import { answerOf, newMessages } from '../ui/call-content.js';
import { loadEpisode } from './episode.js';
import { executeRun, STORE_FILE } from './run.js';

export interface ReplayOptions {
  signal?: AbortSignal;
  extraCaFile?: string;
  onLog?(line: string): void;
}

export interface ReplayReport {
  original: RolloutRecord;
  replay: RolloutRecord;
  identical: boolean;
  /** What came out differently, first difference first; empty when identical. */
  differences: string[];
}

/**
 * Runs a recorded episode again with `sim:replay:<rollout>` (the recorded answers, in order) and
 * compares: every tool call, every tool result the harness sent back, the final answer and the reward.
 * Answers are the same by construction, so a difference points at the environment or the grader.
 */
export async function replayRollout(outputDir: string, rolloutId: string, options: ReplayOptions = {}): Promise<ReplayReport> {
  const file = path.join(outputDir, STORE_FILE);
  let store = await Store.open(file);
  const episode = await loadEpisode(store, outputDir, rolloutId).finally(() => store.close());
  episode.loaded.config.model.upstream = `sim:replay:${rolloutId}`;
  const summary = await executeRun(episode.loaded, {
    fresh: true,
    parent: { rolloutId, kind: 'replay', atSeq: null },
    signal: options.signal,
    extraCaFile: options.extraCaFile,
    onLog: options.onLog,
  });
  store = await Store.open(file);
  try {
    const [replay] = await store.currentRollouts(summary.runId);
    const original = (await store.getRollout(rolloutId))!;
    const differences = compareEpisodes(original, await store.listCalls(rolloutId), replay!, await store.listCalls(replay!.id));
    return { original, replay: replay!, identical: differences.length === 0, differences };
  } finally {
    await store.close();
  }
}

/** Differences between two runs of one episode, in the order they happened. */
export function compareEpisodes(a: RolloutRecord, aCalls: RecordedCall[], b: RolloutRecord, bCalls: RecordedCall[]): string[] {
  const out: string[] = [];
  const n = Math.max(aCalls.length, bCalls.length);
  for (let i = 0; i < n; i++) {
    const x = aCalls[i];
    const y = bCalls[i];
    if (!x || !y) {
      out.push(`call ${i + 1}: ${x ? 'made by the original only' : 'made by the replay only'}`);
      continue;
    }
    const seen = [newMessages(x, aCalls[i - 1]), newMessages(y, bCalls[i - 1])].map((m) => m.map(messageKey));
    if (i > 0 && JSON.stringify(seen[0]) !== JSON.stringify(seen[1])) out.push(`call ${x.seq}: the tool results sent back differ: ${clip(seen[0]!.join(' '))} ≠ ${clip(seen[1]!.join(' '))}`);
    const [ax, ay] = [answerOf(x.response, x.protocol), answerOf(y.response, y.protocol)];
    if (JSON.stringify(ax.toolCalls) !== JSON.stringify(ay.toolCalls)) out.push(`call ${x.seq}: the tool calls differ: ${clip(JSON.stringify(ax.toolCalls))} ≠ ${clip(JSON.stringify(ay.toolCalls))}`);
    else if (ax.text !== ay.text) out.push(`call ${x.seq}: the answer text differs`);
    if (x.status !== y.status) out.push(`call ${x.seq}: status ${x.status} ≠ ${y.status}`);
  }
  if (a.reward !== b.reward) out.push(`reward ${a.reward ?? 'none'} ≠ ${b.reward ?? 'none'}`);
  if (a.errorType !== b.errorType) out.push(`error ${a.errorType ?? 'none'} ≠ ${b.errorType ?? 'none'}`);
  return out;
}

function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
