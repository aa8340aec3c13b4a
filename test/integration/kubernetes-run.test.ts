import { existsSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../../src/config/run.js';
import { loadTasks } from '../../src/config/task.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';
import { tagForRegistry } from '../../src/sandbox/kubernetes/image-push.js';
import { Store } from '../../src/store/store.js';
import { FakeKubeApi } from '../helpers/fake-kube-api.js';
import { makeSuite } from '../helpers/tasks.js';
import { forgingSuite, groundTruth } from '../helpers/forging-tasks.js';

const REGISTRY = 'localhost:5000';
const TASKS = ['create-config-file', 'edit-ini-settings'].map((t) => path.resolve('envs/claw-basic', t));
let fake: FakeKubeApi;
let kubernetes: Record<string, unknown>;
const tagged: string[] = [];

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function config(raw: Partial<Record<keyof RunConfig, unknown>>) {
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-k8s-run-'));
  return resolveRunConfig({ output, backend: 'kubernetes', kubernetes, ...raw }, path.join(output, 'run.yaml'));
}

/** What `openforge images push --registry` does before the push: the fake kubelet "pulls" from the local engine. */
async function publishLocally(taskDirs: string[]): Promise<void> {
  const builder = new ImageBuilder(fake.docker);
  tagged.push(await tagForRegistry(fake.docker, (await builder.ensureVerifierToolsVolume()).image!, REGISTRY));
  tagged.push(await tagForRegistry(fake.docker, (await builder.ensureAgentNodeVolume()).image!, REGISTRY));
  for (const task of taskDirs.flatMap((d) => loadTasks(d))) tagged.push(await tagForRegistry(fake.docker, await builder.ensureTaskImage(task), REGISTRY));
}

beforeAll(async () => {
  fake = await new FakeKubeApi({ forbiddenNamespaces: ['locked'] }).start();
  kubernetes = {
    kubeconfig: fake.kubeconfig(),
    namespace: 'rl',
    images: { registry: REGISTRY },
    proxy: { address: `${fake.gateway}:${await freePort(fake.gateway)}` },
    max_pods: 2,
  };
  await publishLocally(TASKS);
});

afterAll(async () => {
  for (const ref of tagged)
    await fake.docker
      .getImage(ref)
      .remove({ noprune: true })
      .catch(() => undefined);
  await fake?.stop();
});

describe('openforge run with backend: kubernetes (real client → fake API server → pods in Docker)', () => {
  it('solves claw-basic tasks with the oracle harness, one pod per rollout, and leaves no pod behind', async () => {
    const loaded = config({ tasks: TASKS, harness: 'oracle', network: 'none', rollouts_per_task: 2, concurrency: 4 });
    fake.peakPods = 0;
    const summary = await executeRun(loaded);
    expect(fake.peakPods).toBe(2); // kubernetes.max_pods caps the run's concurrency of 4
    expect(summary.tasks.map((t) => ({ task: t.taskId, rewards: t.rewards, errors: t.errors }))).toEqual([
      { task: 'create-config-file', rewards: [1, 1], errors: {} },
      { task: 'edit-ini-settings', rewards: [1, 1], errors: {} },
    ]);
    const podsCreated = fake.requests.filter((r) => r === 'POST /api/v1/namespaces/rl/pods').length;
    expect(podsCreated).toBe(4);
    expect(fake.list('pods', 'rl/')).toEqual([]);
    expect(fake.list('configmaps', 'rl/')).toEqual([]);
    const artifacts = path.join(loaded.outputDir, summary.runId, 'create-config-file', '0-a1', 'verifier');
    expect(existsSync(path.join(artifacts, 'test-stdout.txt'))).toBe(true);
  }, 600_000);

  it('runs forge-agent against the sim through the recording proxy at the configured address, recording every call', async () => {
    const loaded = config({ tasks: TASKS[0], harness: 'forge-agent', model: { upstream: 'sim:oracle' }, network: 'proxy-only' });
    const summary = await executeRun(loaded);
    expect(summary.tasks[0]).toMatchObject({ rewards: [1], errors: {} });
    const store = await Store.open(path.join(loaded.outputDir, STORE_FILE));
    try {
      const [rollout] = await store.currentRollouts(summary.runId);
      const calls = await store.listCalls(rollout!.id);
      expect(calls.length).toBeGreaterThanOrEqual(2);
      for (const c of calls) expect({ status: c.status, missing: c.missingTokenIds }).toEqual({ status: 200, missing: false });
    } finally {
      await store.close();
    }
  }, 600_000);

  it('kills a hanging harness at the agent timeout inside the pod and still grades the workspace', async () => {
    const suite = makeSuite([{ id: 'hang', solve: '#!/bin/bash\nsleep 600\n', toml: '[task]\nname = "hang"\n[agent]\ntimeout_sec = 3\n' }]);
    await publishLocally([suite]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]).toMatchObject({ errors: { agent_timeout: 1 }, rewards: [0] });
  }, 600_000);

  it('records a pod over its memory limit as oom_killed', async () => {
    const suite = makeSuite([
      {
        id: 'hog',
        solve: '#!/bin/bash\npython3 -c "x = bytearray(1024 * 1024 * 1024)"\necho done > /workspace/done.txt\n',
        toml: '[task]\nname = "hog"\n[environment]\nmemory_mb = 128\n',
      },
    ]);
    await publishLocally([suite]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none' }));
    expect(summary.tasks[0]!.errors).toEqual({ oom_killed: 1 });
  }, 600_000);

  it('stops before creating anything, locally or on the cluster, when the namespace is not writable', async () => {
    const before = fake.requests.length;
    const loaded = config({ tasks: TASKS, harness: 'oracle', network: 'none', kubernetes: { ...kubernetes, namespace: 'locked' } });
    await expect(executeRun(loaded)).rejects.toThrow(/kubernetes\.namespace: you may not create objects in namespace "locked"/);
    expect(fake.requests.slice(before).every((r) => r.endsWith('(dry run)'))).toBe(true);
    expect(fake.list('configmaps', 'locked/')).toEqual([]);
    expect(existsSync(path.join(loaded.outputDir, STORE_FILE))).toBe(false);
  });

  it("grades with the verifier's own tools in the pod: rollouts that forge the reward end with the grader's 0", async () => {
    const suite = forgingSuite(['background-reward-writer', 'replaced-tar']);
    await publishLocally([suite]);
    const summary = await executeRun(config({ tasks: suite, harness: 'oracle', network: 'none', concurrency: 2 }));
    expect(Object.fromEntries(summary.tasks.map((t) => [t.taskId, { rewards: t.rewards, errors: t.errors }]))).toEqual(
      groundTruth(['background-reward-writer', 'replaced-tar']),
    );
  }, 600_000);

  it('records a task whose image was never pushed as an infrastructure error naming the pull failure', async () => {
    const suite = makeSuite([{ id: 'unpushed', dockerfile: 'FROM openforge/workspace\nRUN echo unpushed > /marker\n' }]);
    const loaded = config({ tasks: suite, harness: 'oracle', network: 'none', retries: { infrastructure: 0 } });
    const summary = await executeRun(loaded);
    expect(summary.tasks[0]!.errors).toEqual({ infrastructure: 1 });
    const store = await Store.open(path.join(loaded.outputDir, STORE_FILE));
    try {
      const [rollout] = await store.currentRollouts(summary.runId);
      expect(rollout!.errorMessage).toMatch(/pod (ErrImagePull|ImagePullBackOff): .*localhost:5000\/openforge\/task-unpushed:.*openforge images push/s);
    } finally {
      await store.close();
    }
  }, 600_000);
});
