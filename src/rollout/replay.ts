import path from 'node:path';
import type { RolloutRecord } from '../store/store.js';
import { Store } from '../store/store.js';
import type { RecordedCall } from '../records/call.js';
import { messageKey } from '../trajectory/conversation.js';
import { harnessFor } from '../harness/registry.js';
import { BEYOND_SCRIPT_UPSTREAM } from '../proxy/calls/scripted-answers.js';
import { type ScriptedAnswer } from '../proxy/session.js';
import { answerOf, newMessages } from '../trajectory/call-content.js';
import { loadEpisode, type Episode } from './episode.js';
import { answeredPolicyCalls, recordedScript } from './recorded-script.js';
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
 * Runs a recorded episode again, the proxy playing back every recorded policy answer itself, in the
 * harness's own protocol (Chat, Responses or Anthropic Messages), and compares: every tool call, every
 * tool result the harness sent back, the final answer and the reward. Answers are the same by
 * construction, so a difference points at the environment or the grader. A policy call past the
 * recorded ones is answered with a final message and reported as an overrun.
 */
export async function replayRollout(outputDir: string, rolloutId: string, options: ReplayOptions = {}): Promise<ReplayReport> {
  const file = path.join(outputDir, STORE_FILE);
  let store = await Store.open(file);
  const { episode, script } = await planReplay(store, outputDir, rolloutId).finally(() => store.close());
  options.onLog?.(
    `replay: the proxy plays back the ${script.length} recorded policy answer(s) of ${rolloutId} itself; helper calls, if any, go to ${episode.upstream}`,
  );
  const summary = await executeRun(episode.loaded, {
    fresh: true,
    parent: { rolloutId, kind: 'replay', atSeq: null },
    script,
    endAfterScript: true,
    signal: options.signal,
    extraCaFile: options.extraCaFile,
    onLog: options.onLog,
  });
  store = await Store.open(file);
  try {
    const [replay] = await store.currentRollouts(summary.runId);
    const original = (await store.getRollout(rolloutId))!;
    const volatile = harnessFor(episode.loaded.config).volatileToolOutput;
    const differences = compareEpisodes(original, await store.listCalls(rolloutId), replay!, await store.listCalls(replay!.id), volatile);
    return { original, replay: replay!, identical: differences.length === 0, differences };
  } finally {
    await store.close();
  }
}

/**
 * Everything a replay needs, checked before anything runs: the episode (same task, harness, config and
 * upstream, which still answers helper calls such as a harness's side requests) and the script of every
 * recorded policy answer, with its recorded token ids where the conversation matches. Throws a
 * UserError when a recorded answer cannot be played back.
 */
export async function planReplay(store: Store, outputDir: string, rolloutId: string): Promise<{ episode: Episode; script: ScriptedAnswer[] }> {
  const episode = await loadEpisode(store, outputDir, rolloutId);
  const script = recordedScript(answeredPolicyCalls(await store.listCalls(rolloutId)), true);
  return { episode, script };
}

/**
 * Differences between two runs of one episode, in the order they happened. The answered policy calls
 * are compared pairwise (helper calls and retried failures are not part of the played-back episode);
 * a call the proxy had to end because the recording ran out is reported as such. `volatile`: the
 * harness's run-to-run noise in tool results (Harness.volatileToolOutput), masked before comparing.
 */
export function compareEpisodes(
  a: RolloutRecord,
  aCalls: RecordedCall[],
  b: RolloutRecord,
  bCalls: RecordedCall[],
  volatile: readonly RegExp[] = [],
): string[] {
  const out: string[] = [];
  const mask = (key: string) => volatile.reduce((text, pattern) => text.replaceAll(pattern, '…'), key);
  const [xs, ys] = [answeredPolicyCalls(aCalls), answeredPolicyCalls(bCalls)];
  const n = Math.max(xs.length, ys.length);
  for (let i = 0; i < n; i++) {
    const x = xs[i];
    const y = ys[i];
    if (!x) {
      out.push(`the replay made more model calls than the original: call ${y!.seq}`);
      break;
    }
    if (!y) {
      out.push(`the replay made fewer model calls than the original: it ended before the original's call ${x.seq}`);
      break;
    }
    const seen = [newMessages(x, xs[i - 1]), newMessages(y, ys[i - 1])].map((m) => m.map((message) => mask(messageKey(message))));
    if (i > 0 && JSON.stringify(seen[0]) !== JSON.stringify(seen[1]))
      out.push(`call ${x.seq}: the tool results sent back differ: ${divergence(seen[0]!.join(' '), seen[1]!.join(' '))}`);
    const [ax, ay] = [answerOf(x.response, x.protocol), answerOf(y.response, y.protocol)];
    // ids aside: a replayed answer's tool calls get new ones
    const [cx, cy] = [ax, ay].map((answer) => JSON.stringify(answer.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))));
    if (cx !== cy) out.push(`call ${x.seq}: the tool calls differ: ${divergence(cx!, cy!)}`);
    else if (ax.text !== ay.text) out.push(`call ${x.seq}: the answer text differs`);
  }
  const overrun = bCalls.find((c) => c.label === 'policy' && c.upstream === BEYOND_SCRIPT_UPSTREAM);
  if (overrun && !(xs.length < ys.length)) out.push(`the replay made more model calls than the original: call ${overrun.seq}`);
  if (a.reward !== b.reward) out.push(`reward ${a.reward ?? 'none'} ≠ ${b.reward ?? 'none'}`);
  if (a.errorType !== b.errorType) out.push(`error ${a.errorType ?? 'none'} ≠ ${b.errorType ?? 'none'}`);
  return out;
}

/** "a ≠ b", both shown from a little before where they first differ (a shared start is mostly the same boilerplate). */
function divergence(a: string, b: string, before = 40, max = 200): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const start = Math.max(0, i - before);
  const clip = (text: string) => `${start > 0 ? '…' : ''}${text.length - start > max ? `${text.slice(start, start + max)}…` : text.slice(start)}`;
  return `${clip(a)} ≠ ${clip(b)}`;
}
