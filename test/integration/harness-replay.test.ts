import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCRIPTED_UPSTREAM } from '../../src/proxy/calls/scripted-answers.js';
import { replayRollout } from '../../src/rollout/replay.js';
import { STORE_FILE } from '../../src/rollout/run.js';
import { Store } from '../../src/store/store.js';
import type { RecordedCall } from '../../src/records/call.js';
import { harnessLayer } from '../helpers/harness.js';
import { CLAW_BASIC, explain, runHarness } from '../helpers/harness-run.js';

/**
 * Replays of real harness episodes in their own protocols: Claude Code (Anthropic Messages) and Codex
 * (Responses). The proxy plays every recorded answer back to the harness itself, streamed, in that
 * protocol; the same environment gives "identical", a changed one names what came out differently.
 */
async function recordEpisode(harness: 'claude-code' | 'codex') {
  await harnessLayer(harness);
  // a copy of the task: the environment-change test edits it between the recording and the replay
  const task = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-replay-task-')), 'create-config-file');
  cpSync(path.join(CLAW_BASIC, 'create-config-file'), task, { recursive: true });
  const { rollouts, output } = await runHarness(harness, [task]);
  const original = rollouts[0]!;
  expect(original.reward, explain(original)).toBe(1);
  const store = await Store.open(path.join(output, STORE_FILE));
  try {
    const run = (await store.latestRun())!;
    return { task, output, rolloutId: (await store.currentRollouts(run.id))[0]!.id, policy: original.calls.filter((c) => c.label === 'policy') };
  } finally {
    await store.close();
  }
}

async function policyCallsOf(output: string, rolloutId: string): Promise<RecordedCall[]> {
  const store = await Store.open(path.join(output, STORE_FILE));
  try {
    return (await store.listCalls(rolloutId)).filter((c) => c.label === 'policy');
  } finally {
    await store.close();
  }
}

describe.each([
  { harness: 'claude-code' as const, protocol: 'anthropic', secondPromptRecorded: true },
  // Codex's tool results carry a new chunk id each run: the second prompt is not the recorded one, so
  // the recorded ids (of the old prompt) are not this call's and it is served without ids
  { harness: 'codex' as const, protocol: 'responses', secondPromptRecorded: false },
])('a replay of a $harness episode', ({ harness, protocol, secondPromptRecorded }) => {
  let episode: Awaited<ReturnType<typeof recordEpisode>>;

  beforeAll(async () => {
    episode = await recordEpisode(harness);
  }, 900_000);

  it(`plays every recorded ${protocol} answer back to the harness and comes out identical`, async () => {
    const { output, rolloutId, policy } = episode;
    expect(policy.map((c) => c.protocol)).toEqual([protocol, protocol]);
    const report = await replayRollout(output, rolloutId, { extraCaFile: process.env.OPENFORGE_EXTRA_CA });
    expect(report.differences).toEqual([]);
    expect(report.identical).toBe(true);
    expect(report.replay.reward).toBe(1);
    expect(report.replay.parent).toEqual({ rolloutId, kind: 'replay', atSeq: null });

    const replayed = await policyCallsOf(output, report.replay.id);
    expect(replayed.map((c) => [c.protocol, c.status, c.upstream])).toEqual([
      [protocol, 200, SCRIPTED_UPSTREAM],
      [protocol, 200, SCRIPTED_UPSTREAM],
    ]);
    // the same conversation: the answer is recorded again with the token ids the model produced for it
    expect(replayed[0]!.completionTokenIds?.length).toBeGreaterThan(0);
    expect(replayed[0]!.completionTokenIds).toEqual(policy[0]!.completionTokenIds);
    expect(replayed[1]!.completionTokenIds).toEqual(secondPromptRecorded ? policy[1]!.completionTokenIds : null);
  }, 600_000);

  it('names the tool result and the reward that changed when the environment changed', async () => {
    const { task, output, rolloutId } = episode;
    // the deploy spec the recorded command renders loses a key: the command now fails
    const spec = path.join(task, 'environment/files/inputs/deploy.json');
    const { workers: _dropped, ...rest } = JSON.parse(readFileSync(spec, 'utf8')) as Record<string, unknown>;
    writeFileSync(spec, JSON.stringify(rest, null, 2));

    const report = await replayRollout(output, rolloutId, { extraCaFile: process.env.OPENFORGE_EXTRA_CA });
    expect(report.identical).toBe(false);
    const second = (await policyCallsOf(output, rolloutId))[1]!.seq;
    expect(report.differences).toEqual([
      expect.stringMatching(new RegExp(`^call ${second}: the tool results sent back differ: .* ≠ .*Traceback`)),
      'reward 1 ≠ 0',
    ]);
  }, 600_000);
});
