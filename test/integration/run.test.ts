import { readFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { passAtK, passHatK } from '../../src/analytics/run-summary.js';
import { Store } from '../../src/store/store.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

const CLAW_BASIC = path.resolve('envs/claw-basic');

function config(raw: Partial<Record<keyof RunConfig, unknown>> & { tasks: string }) {
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-run-'));
  return resolveRunConfig({ output, ...raw }, path.join(output, 'run.yaml'));
}

beforeAll(async () => {
  await workspaceImage();
});

describe('openforge run, end to end with Docker, the proxy, the sim and forge-agent', () => {
  it('solves every claw-basic task under sim:oracle, recording every model call with token ids', async () => {
    const loaded = config({ tasks: CLAW_BASIC, harness: 'forge-agent', model: { upstream: 'sim:oracle' }, rollouts_per_task: 1, concurrency: 4, warm_pool: 4 });
    const logs: string[] = [];
    const summary = await executeRun(loaded, { onLog: (line) => logs.push(line) });
    expect(summary.tasks.length).toBeGreaterThanOrEqual(12);
    // The first 4 start at once; each later rollout gets the container started for it while earlier ones ran.
    expect(logs).toContain(`warm pool: ${summary.tasks.length - 4} of ${summary.tasks.length} containers were started ahead`);
    const { backend } = await workspaceImage();
    expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${summary.runId}`] } })).toHaveLength(0);
    for (const t of summary.tasks) expect({ task: t.taskId, rewards: t.rewards, errors: t.errors }).toEqual({ task: t.taskId, rewards: [1], errors: {} });
    expect(summary.simulated).toBe(true);
    expect(summary.errors).toEqual({});

    const store = await Store.open(path.join(loaded.outputDir, STORE_FILE));
    try {
      const rollouts = await store.currentRollouts(summary.runId);
      for (const r of rollouts) {
        const calls = await store.listCalls(r.id);
        expect(calls.length).toBeGreaterThanOrEqual(2); // at least one tool call turn and the final answer
        expect(calls.map((c) => c.seq)).toEqual(calls.map((_, i) => i + 1));
        for (const c of calls) {
          expect(c.status).toBe(200);
          expect(c.missingTokenIds).toBe(false);
          expect(c.promptTokenIds!.length).toBeGreaterThan(0);
          expect(c.completionTokenIds!.length).toBe(c.logprobs!.length);
        }
        // Multi-turn: each prompt extends the previous prompt + completion (the sim's template is prefix-stable).
        for (let i = 1; i < calls.length; i++) {
          const prefix = [...calls[i - 1]!.promptTokenIds!, ...calls[i - 1]!.completionTokenIds!];
          expect(calls[i]!.promptTokenIds!.slice(0, prefix.length)).toEqual(prefix);
        }
        const artifacts = path.join(loaded.outputDir, summary.runId, r.taskId, '0-a1');
        expect(existsSync(path.join(artifacts, 'agent', 'transcript.jsonl'))).toBe(true);
        expect(['reward.txt', 'reward.json'].some((f) => existsSync(path.join(artifacts, 'verifier', f)))).toBe(true);
        expect(existsSync(path.join(artifacts, 'verifier', 'test-stdout.txt'))).toBe(true);
        expect(readdirSync(artifacts).filter((name) => name.startsWith('.'))).toEqual([]); // no staging folder left
        expect(JSON.parse(readFileSync(path.join(artifacts, 'result.json'), 'utf8')).reward).toBe(1);
      }
    } finally {
      await store.close();
    }
  }, 600_000);

  it('sim:noisy:0.5 gives mixed rewards and pass@k / pass^k that match them', async () => {
    const suite = makeSuite([{ id: 'alpha' }, { id: 'beta' }, { id: 'gamma' }]);
    // with an admin token, the run's proxy can be scraped while the run lasts
    let port = 0;
    let scraped: Promise<[Response, Response]> | undefined;
    const scrape = () =>
      Promise.all([
        fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer run-admin-token' } }),
        fetch(`http://127.0.0.1:${port}/metrics`),
      ]);
    const summary = await executeRun(config({ tasks: suite, model: { upstream: 'sim:noisy:0.5' }, rollouts_per_task: 4, concurrency: 4 }), {
      proxyAdminToken: 'run-admin-token',
      onLog: (line) => (port ||= Number(/^proxy listening on [\d.]+:(\d+)/.exec(line)?.[1] ?? 0)),
      onRolloutDone: () => void (scraped ??= scrape()),
    });
    const [withToken, without] = await scraped!;
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toMatch(/^openforge_proxy_calls_total\{protocol="chat",label="policy",status="200"\} [1-9]/m);
    expect(without.status).toBe(401);
    const all = summary.tasks.flatMap((t) => t.rewards);
    expect(all).toHaveLength(12);
    expect(all).toContain(0);
    expect(all).toContain(1);
    for (const t of summary.tasks) {
      const c = t.rewards.filter((r) => r === 1).length;
      expect(t.passes).toBe(c);
      expect(t.passAtK).toBeCloseTo(passAtK(4, c, 4));
      expect(t.passHatK).toBeCloseTo(passHatK(4, c, 4));
      expect(t.passAt1).toBeCloseTo(c / 4);
    }
  }, 300_000);
});

describe('sim:replay', () => {
  it('re-runs a recorded rollout deterministically: same answers, same tokens, same reward', async () => {
    const suite = makeSuite([{ id: 'twice', solve: '#!/bin/bash\n# step: one\necho do > /workspace/x\n# step: two\necho done > /workspace/done.txt\n' }]);
    const first = config({ tasks: suite, model: { upstream: 'sim:oracle' } });
    const original = await executeRun(first);
    const store = await Store.open(path.join(first.outputDir, STORE_FILE));
    const [recorded] = await store.currentRollouts(original.runId);
    const originalCalls = await store.listCalls(recorded!.id);
    await store.close();

    const replay = resolveRunConfig({ tasks: suite, model: { upstream: `sim:replay:${recorded!.id}` }, output: first.outputDir }, first.file);
    const again = await executeRun(replay);
    expect(again.runId).not.toBe(original.runId);
    expect(again.tasks[0]!.rewards).toEqual([1]);
    const store2 = await Store.open(path.join(first.outputDir, STORE_FILE));
    const [replayed] = await store2.currentRollouts(again.runId);
    const replayCalls = await store2.listCalls(replayed!.id);
    await store2.close();
    expect(replayCalls.map((c) => c.completionTokenIds)).toEqual(originalCalls.map((c) => c.completionTokenIds));
    expect(replayCalls.length).toBe(3);
  }, 120_000);
});

describe('faults are typed and recorded', () => {
  it('kills a hanging harness at the agent timeout and records agent_timeout', async () => {
    const suite = makeSuite([{ id: 'hang', solve: '#!/bin/bash\nsleep 600\n', toml: '[task]\nname = "hang"\n[agent]\ntimeout_sec = 3\n' }]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]!.errors).toEqual({ agent_timeout: 1 });
    expect(summary.tasks[0]!.rewards).toEqual([0]); // the verifier still grades what was left
  }, 120_000);

  it('records a container over its memory limit as oom_killed', async () => {
    const suite = makeSuite([
      {
        id: 'hog',
        solve: '#!/bin/bash\npython3 -c "x = bytearray(1024 * 1024 * 1024)"\necho done > /workspace/done.txt\n',
        toml: '[task]\nname = "hog"\n[environment]\nmemory_mb = 128\n',
      },
    ]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]!.errors).toEqual({ oom_killed: 1 });
  }, 120_000);

  it('records a task whose image fails to build as a build error and runs the rest', async () => {
    const suite = makeSuite([{ id: 'broken', dockerfile: 'FROM openforge/workspace\nRUN exit 7\n' }, { id: 'fine' }]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none', rollouts_per_task: 2 }));
    const broken = summary.tasks.find((t) => t.taskId === 'broken')!;
    expect(broken.errors).toEqual({ build: 2 });
    expect(broken.rewards).toEqual([null, null]);
    expect(summary.tasks.find((t) => t.taskId === 'fine')!.rewards).toEqual([1, 1]);
  }, 300_000);

  it('records a grader that writes no reward as verifier_failure', async () => {
    const suite = makeSuite([{ id: 'mute', test: '#!/bin/bash\necho "forgot the reward"\n' }]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]!.errors).toEqual({ verifier_failure: 1 });
  }, 120_000);

  it('records a grader past its timeout as verifier_failure, with what it printed collected', async () => {
    const toml = '[task]\nname = "slow"\n[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 1\n';
    const suite = makeSuite([{ id: 'slow', toml, test: '#!/bin/bash\necho "grading started"\nsleep 30\necho 1 > /logs/verifier/reward.txt\n' }]);
    const loaded = config({ tasks: suite, harness: 'oracle', network: 'none' });
    const summary = await executeRun(loaded);
    expect(summary.tasks[0]!.errors).toEqual({ verifier_failure: 1 });
    const rolloutDir = path.join(loaded.outputDir, summary.runId, 'slow', '0-a1');
    expect(readFileSync(path.join(rolloutDir, 'exception.txt'), 'utf8')).toMatch(/the grader ran past its timeout of 1 s/);
    expect(readFileSync(path.join(rolloutDir, 'verifier', 'test-stdout.txt'), 'utf8')).toBe('grading started\n');
  }, 120_000);

  it('reads a reward the grader left behind a symlink, which the collected logs skip, from inside the container', async () => {
    const test = '#!/bin/bash\necho 0.5 > /tmp/score && ln -s /tmp/score /logs/verifier/reward.txt\n';
    const suite = makeSuite([{ id: 'linked', test }]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]!.rewards).toEqual([0.5]);
  }, 120_000);

  it('ignores a reward file the agent forged: only the grader writes rewards', async () => {
    const suite = makeSuite([{ id: 'forge', solve: '#!/bin/bash\nmkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt\n' }]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]!.rewards).toEqual([0]);
  }, 120_000);

  it("runs forge-agent on the agent layer's Node, whether the task image has a Node or none", async () => {
    const suite = makeSuite([
      { id: 'own-node', solve: '#!/bin/bash\n# step: which node\nreadlink /proc/$PPID/exe > /workspace/node.txt; echo done > /workspace/done.txt\n' },
      {
        id: 'no-node',
        dockerfile: 'FROM openforge/workspace\nRUN rm -rf /opt/openforge/node /usr/bin/node /usr/bin/nodejs\n',
        solve: '#!/bin/bash\n# step: which node\nreadlink /proc/$PPID/exe > /workspace/node.txt; echo done > /workspace/done.txt\n',
      },
    ]);
    const test = `#!/bin/bash\n[ "$(cat /workspace/node.txt)" = /opt/openforge-node/bin/node ] && echo 1 > /logs/verifier/reward.txt || { cat /workspace/node.txt; echo 0 > /logs/verifier/reward.txt; }\n`;
    for (const id of ['own-node', 'no-node']) writeFileSync(path.join(suite, id, 'tests', 'test.sh'), test);
    const summary = await executeRun(config({ tasks: suite, model: { upstream: 'sim:oracle' } }));
    expect(summary.tasks.map((t) => [t.taskId, t.rewards])).toEqual([
      ['no-node', [1]],
      ['own-node', [1]],
    ]);
  }, 180_000);

  it('leaves no container or network of the run behind', async () => {
    const suite = makeSuite([{ id: 'tidy' }]);
    const summary = await executeRun(config({ tasks: suite, model: { upstream: 'sim:oracle' } }));
    const { backend } = await workspaceImage();
    expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${summary.runId}`] } })).toHaveLength(0);
    expect(await backend.docker.listNetworks({ filters: { label: [`${LABEL_RUN}=${summary.runId}`] } })).toHaveLength(0);
  }, 120_000);
});
