import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCRIPTED_UPSTREAM } from '../../src/proxy/calls/scripted-answers.js';
import { forkRollout } from '../../src/rollout/fork.js';
import { STORE_FILE } from '../../src/rollout/run.js';
import { Store } from '../../src/store/store.js';
import type { RecordedCall } from '../../src/records/call.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness } from '../helpers/harness-run.js';

/**
 * Forks of real harness episodes in their own protocols: Claude Code (Anthropic Messages) and Codex
 * (Responses). The edited answer is given in the call's protocol shape; the proxy serves the recorded
 * first call and the edit to the harness itself, in that protocol, streamed; sim:oracle continues.
 */
// (Codex refuses rm -f style commands of its own accord: overwriting is what it runs)
const EDIT = 'echo broken > /workspace/config/service.ini';

async function forkOf(harness: 'claude-code' | 'codex', editedAnswer: (firstAnswer: unknown) => unknown) {
  await harnessLayer(harness);
  const { rollouts, output } = await runHarness(harness, ['create-config-file']);
  const parent = rollouts[0]!;
  expect(parent.reward, explain(parent)).toBe(1);
  const policy = parent.calls.filter((c) => c.label === 'policy');
  expect(policy.length, explain(parent)).toBe(2);
  const at = policy[1]!.seq;
  return { output, at, answer: JSON.stringify(editedAnswer(policy[0]!.response)) };
}

async function rolloutIdOf(output: string): Promise<string> {
  const store = await Store.open(path.join(output, STORE_FILE));
  try {
    const run = (await store.latestRun())!;
    return (await store.currentRollouts(run.id))[0]!.id;
  } finally {
    await store.close();
  }
}

async function callsOf(output: string, rolloutId: string): Promise<RecordedCall[]> {
  const store = await Store.open(path.join(output, STORE_FILE));
  try {
    return await store.listCalls(rolloutId);
  } finally {
    await store.close();
  }
}

describe.each([
  {
    harness: 'claude-code' as const,
    protocol: 'anthropic',
    // the first answer's Bash tool_use, its command swapped: an Anthropic content block list
    edit: (first: unknown) => {
      const block = (first as { content: { type: string; name: string; input: Record<string, unknown> }[] }).content.find((b) => b.type === 'tool_use')!;
      return [{ type: 'tool_use', name: block.name, input: { ...block.input, command: EDIT } }];
    },
  },
  {
    harness: 'codex' as const,
    protocol: 'responses',
    // the first answer's exec_command call, its command swapped: a Responses output item list
    edit: (first: unknown) => {
      const item = (first as { output: { type: string; name: string; arguments: string }[] }).output.find((i) => i.type === 'function_call')!;
      const args = JSON.parse(item.arguments) as Record<string, unknown>;
      const key = 'cmd' in args ? 'cmd' : 'command';
      return [{ type: 'function_call', name: item.name, arguments: JSON.stringify({ ...args, [key]: EDIT }) }];
    },
  },
])('a fork of a $harness episode', ({ harness, protocol, edit }) => {
  let output: string;
  let at: number;
  let parentId: string;
  let answer: string;

  beforeAll(async () => {
    ({ output, at, answer } = await forkOf(harness, edit));
    parentId = await rolloutIdOf(output);
  }, 900_000);

  it(`takes the edited answer in the ${protocol} shape, serves it to the harness, and sim:oracle continues`, async () => {
    const { fork } = await forkRollout(output, parentId, { atSeq: at, answer, upstream: 'sim:oracle', extraCaFile: process.env.OPENFORGE_EXTRA_CA });
    const forked = (await callsOf(output, fork.id)).filter((c) => c.label === 'policy');
    expect(fork.parent).toEqual({ rolloutId: parentId, kind: 'fork', atSeq: at });
    expect(fork.reward, `${fork.errorType}: ${fork.errorMessage}`).toBe(0); // the harness ran the edited command
    expect(forked.map((c) => [c.protocol, c.status, c.upstream === SCRIPTED_UPSTREAM])).toEqual([
      [protocol, 200, true],
      [protocol, 200, true],
      [protocol, 200, false],
    ]);
    expect(JSON.stringify(forked[1]!.response)).toContain(EDIT);
    expect(forked[1]).toMatchObject({ completionTokenIds: null, missingTokenIds: true });
    // the harness sent the edited call and its result back in its history
    expect(JSON.stringify(forked[2]!.request)).toContain(EDIT);
  }, 600_000);
});
