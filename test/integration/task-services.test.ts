import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun } from '../../src/rollout/run.js';
import { validateTasks, type TaskValidation } from '../../src/rollout/validate.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { LABEL_SERVICE } from '../../src/sandbox/docker/services.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

/**
 * A task with a mock service (environment/docker-compose.yaml): the service is built and started beside each
 * rollout container in its network namespace, the agent (forge-agent, and Codex as a real harness) reaches it by
 * name, and the grader reads the audit log OpenForge fetched from it after the agent ended.
 */
const TASK = path.resolve('test/fixtures/service-tasks/order-api');
const docker = new Docker();

let validation: TaskValidation[] = [];
const agentRuns: Record<string, HarnessRolloutRecord[]> = {};

beforeAll(async () => {
  validation = await validateTasks(TASK, { concurrency: 1 });
  await harnessLayer('codex');
  for (const harness of ['forge-agent', 'codex']) agentRuns[harness] = (await runHarness(harness, [TASK], { concurrency: 1 })).rollouts;
}, 900_000);

describe('a task with a mock service', () => {
  it('validates: the reference solution orders through the service and scores 1, doing nothing scores 0', () => {
    expect(validation).toEqual([{ taskId: 'order-api', oracleReward: 1, nopReward: 0, ok: true, problem: null }]);
  });

  it.each(['forge-agent', 'codex'])("runs under sim:oracle with %s, graded from the service's audit log, kept with its log in the artifacts", (harness) => {
    const [r] = agentRuns[harness]!;
    expect(r!.reward, explain(r!)).toBe(1);
    const audit = JSON.parse(readFileSync(path.join(r!.artifacts, 'services', 'orders', 'audit.json'), 'utf8'));
    expect(audit.calls).toEqual([{ endpoint: '/orders', request_body: { item: 'widget', qty: 3 }, status: 201 }]);
    expect(readFileSync(path.join(r!.artifacts, 'services', 'orders', 'log.txt'), 'utf8')).toMatch(/"POST \/orders HTTP\/1\.1" 201/);
    expect(existsSync(path.join(r!.artifacts, 'verifier', 'reward.txt'))).toBe(true);
  });
});

describe("the service's network", () => {
  let runId = '';
  afterAll(async () => {
    if (runId) await new DockerBackend().removeRun(runId);
  });

  it("is the rollout container's namespace alone: another container on the run's network cannot reach it", async () => {
    const output = mkdtempSync(path.join(os.tmpdir(), 'of-svc-net-'));
    const summary = await executeRun(
      resolveRunConfig({ tasks: [TASK], harness: 'oracle', network: 'proxy-only', output, concurrency: 1 }, path.join(output, 'run.yaml')),
      { keepContainersSec: 300, fresh: true },
    );
    runId = summary.runId;
    expect(summary.tasks[0]!.rewards).toEqual([1]);
    const containers = await docker.listContainers({ filters: { label: [`${LABEL_RUN}=${runId}`] } });
    const service = containers.find((c) => c.Labels[LABEL_SERVICE] === 'orders')!;
    const rollout = containers.find((c) => !c.Labels[LABEL_SERVICE] && !c.Labels['openforge.network-holder'])!;
    expect(service, JSON.stringify(containers.map((c) => c.Labels))).toBeDefined();
    // no network of its own: it joined the rollout container's namespace
    expect((await docker.getContainer(service.Id).inspect()).HostConfig.NetworkMode).toBe(`container:${rollout.Id}`);
    const info = await docker.getContainer(rollout.Id).inspect();
    const [network, settings] = Object.entries(info.NetworkSettings.Networks)[0]!;
    expect(network).toBe(`openforge-${runId}`);
    // a neighbour on the same run network, at the rollout's address: refused (the run's network keeps containers apart)
    const probe = await docker.createContainer({
      Image: info.Config.Image,
      Cmd: ['python3', '-c', `import socket; s=socket.socket(); s.settimeout(3); print(s.connect_ex((${JSON.stringify(settings.IPAddress)}, 9100)))`],
      Labels: { [LABEL_RUN]: runId },
      HostConfig: { NetworkMode: network },
    });
    await probe.start();
    await probe.wait();
    const out = ((await probe.logs({ stdout: true, stderr: true })) as unknown as Buffer).toString('latin1');
    await probe.remove({ force: true });
    expect(out.trim()).not.toMatch(/\b0$/);
    // while inside the rollout container, the service answers by its name
    const exec = await docker.getContainer(rollout.Id).exec({ Cmd: ['curl', '-sf', 'http://orders:9100/audit'], AttachStdout: true });
    const stream = await exec.start({});
    const text = await new Promise<string>((resolve) => {
      let t = '';
      stream.on('data', (c: Buffer) => (t += c.toString('latin1')));
      stream.on('end', () => resolve(t));
    });
    expect(text).toContain('"calls"');
  }, 600_000);
});
