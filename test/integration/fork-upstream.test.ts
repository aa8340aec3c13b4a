import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { SCRIPTED_UPSTREAM } from '../../src/proxy/calls/scripted-answers.js';
import { forkRollout } from '../../src/rollout/fork.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { Store } from '../../src/store/store.js';
import type { RecordedCall } from '../../src/records/call.js';
import { RolloutTrajectoryBuilder } from '../../src/trajectory/builder.js';
import { fromRecordedCall } from '../../src/trajectory/trajectory-call.js';
import { workspaceImage } from '../helpers/docker.js';

/**
 * Forks continued by a real model server: `openforge sim` in its own process, reached over HTTP by its
 * URL like a user's vLLM (no sim: spec, so the proxy takes the real-upstream path), and by a sim: spec.
 * The proxy answers calls 1..K itself; the edited answer must never become model tokens.
 */
const CLI = path.resolve('bin/openforge.js');
const TASK = path.resolve('envs/claw-basic/create-config-file');
const RM_CONFIG = {
  content: null,
  tool_calls: [{ type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: 'rm -f /workspace/config/service.ini' }) } }],
};

let output: string;
let parentId: string;
let sim: ChildProcess;
let simUrl: string;

async function calls(rolloutId: string): Promise<RecordedCall[]> {
  const store = await Store.open(path.join(output, STORE_FILE));
  try {
    return await store.listCalls(rolloutId);
  } finally {
    await store.close();
  }
}

/** The training samples the veRL export would write for a rollout, and what was left out. */
async function samples(rolloutId: string, recorded: RecordedCall[]) {
  const builder = new RolloutTrajectoryBuilder({
    runId: 'r',
    rolloutId,
    taskId: 'create-config-file',
    sampleIndex: 0,
    harness: 'forge-agent',
    reward: 0,
    simulated: true,
  });
  for (const c of recorded) await builder.add(fromRecordedCall(c));
  return builder.finish();
}

beforeAll(async () => {
  await workspaceImage();
  output = mkdtempSync(path.join(os.tmpdir(), 'of-fork-upstream-'));
  const loaded = resolveRunConfig(
    { tasks: TASK, harness: 'forge-agent', model: { upstream: 'sim:oracle' }, rollouts_per_task: 1, output },
    path.join(output, 'run.yaml'),
  );
  const summary = await executeRun(loaded);
  expect(summary.tasks[0]!.rewards).toEqual([1]);
  const store = await Store.open(path.join(output, STORE_FILE));
  parentId = (await store.currentRollouts(summary.runId))[0]!.id;
  await store.close();

  sim = spawn(process.execPath, [CLI, 'sim', '--tasks', TASK, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  simUrl = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    sim.stdout!.on('data', (d) => {
      stdout += String(d);
      const url = /serving (http\S+)/.exec(stdout)?.[1];
      if (url) resolve(url);
    });
    sim.once('exit', (code) => reject(new Error(`openforge sim exited with ${code} before serving: ${stdout}`)));
  });
}, 600_000);

afterAll(() => {
  if (sim && sim.exitCode === null) sim.kill('SIGTERM');
});

describe('openforge fork with a real upstream URL', () => {
  it('serves calls 1..K from the record and the edit, then forwards to the URL; the edit never trains as model tokens', () => {
    const answer = path.join(output, 'answer.json');
    writeFileSync(answer, JSON.stringify(RM_CONFIG));
    const help = spawnSync(process.execPath, [CLI, 'fork', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--upstream <spec\|url>[\s\S]*OpenAI-compatible server/);
    const run = spawnSync(
      process.execPath,
      [CLI, 'fork', parentId, '--at', '2', '--answer', answer, '--upstream', simUrl, '--model-name', 'sim-oracle', '--dir', output],
      { encoding: 'utf8', timeout: 300_000 },
    );
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^fork (\\S+) of ${parentId.replace(/\./g, '\\.')} at call 2: reward 0\\n$`));
  }, 320_000);

  it("recorded the scripted calls as such, and the continuation as the URL's", async () => {
    const store = await Store.open(path.join(output, STORE_FILE));
    const [fork] = await store.childrenOf(parentId);
    const run = await store.getRun(fork!.runId);
    await store.close();
    expect(fork!.parent).toEqual({ rolloutId: parentId, kind: 'fork', atSeq: 2 });
    expect((run!.config as { config: { model: { upstream: string; name: string } } }).config.model).toMatchObject({ upstream: simUrl, name: 'sim-oracle' });

    const forked = await calls(fork!.id);
    expect(forked.map((c) => [c.seq, c.label, c.status, c.upstream])).toEqual([
      [1, 'policy', 200, SCRIPTED_UPSTREAM],
      [2, 'policy', 200, SCRIPTED_UPSTREAM],
      [3, 'policy', 200, simUrl],
    ]);
    expect(JSON.stringify(forked[1]!.response)).toContain('rm -f /workspace/config/service.ini');
    // Another upstream may tokenize differently: the recorded ids are not this fork's, so none are kept.
    expect(forked.slice(0, 2).map((c) => [c.completionTokenIds, c.missingTokenIds])).toEqual([
      [null, true],
      [null, true],
    ]);
    expect(forked[2]!.completionTokenIds?.length).toBeGreaterThan(0);
    const { stats } = await samples(fork!.id, forked);
    expect(stats.excluded.missing_token_ids).toBe(2);
  });
});

describe('a fork continued by a sim: spec', () => {
  it('keeps the recorded ids of replayed calls whose prompt is unchanged, and none for the edited one', async () => {
    const { fork } = await forkRollout(output, parentId, { atSeq: 2, answer: JSON.stringify(RM_CONFIG), upstream: 'sim:oracle' });
    expect(fork.reward).toBe(0);
    const [original, forked] = [await calls(parentId), await calls(fork.id)];
    expect(forked.map((c) => c.upstream)).toEqual([SCRIPTED_UPSTREAM, SCRIPTED_UPSTREAM, expect.stringMatching(/^http:/)]);
    expect(forked[0]).toMatchObject({
      promptTokenIds: original[0]!.promptTokenIds,
      completionTokenIds: original[0]!.completionTokenIds,
      logprobs: original[0]!.logprobs,
      missingTokenIds: false,
    });
    expect(forked[1]).toMatchObject({ completionTokenIds: null, missingTokenIds: true });
    // Call 1 trains as recorded; the edit is left out, and call 3 starts its own sample.
    const { samples: built, stats } = await samples(fork.id, forked);
    expect(stats.excluded.missing_token_ids).toBe(1);
    expect(built.map((s) => s.extra_fields.call_seqs)).toEqual([[1], [3]]);
  }, 320_000);

  it('refuses an upstream that is neither a sim: spec nor a URL, before anything runs', async () => {
    await expect(forkRollout(output, parentId, { atSeq: 2, answer: JSON.stringify(RM_CONFIG), upstream: 'localhost:8000' })).rejects.toThrow(
      /"localhost:8000" to continue the fork with is neither a sim: spec nor an http\(s\) URL/,
    );
  });
});
