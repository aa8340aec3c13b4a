import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, type V1NetworkPolicy, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendUnreachableError } from '../../src/sandbox/backend-unreachable.js';
import { CommandNotStartedError } from '../../src/sandbox/command-not-started.js';
import { KubernetesBackend } from '../../src/sandbox/kubernetes/backend.js';
import { KubernetesSectionSchema, type KubernetesSection } from '../../src/sandbox/kubernetes/config.js';
import { tagForRegistry } from '../../src/sandbox/kubernetes/image-push.js';
import { PodFailure } from '../../src/sandbox/kubernetes/pod-failure.js';
import { runOwnerConfigMap } from '../../src/sandbox/kubernetes/run-owner.js';
import type { RunNetwork, Sandbox, SandboxSpec } from '../../src/sandbox/types.js';
import { UserError } from '../../src/util/errors.js';
import { workspaceImage } from '../helpers/docker.js';
import { FakeKubeApi } from '../helpers/fake-kube-api.js';

const REGISTRY = 'localhost:5000';
let fake: FakeKubeApi;
let image: string;
let settings: KubernetesSection;
let backend: KubernetesBackend;
const runId = `test-k8s-${process.pid}`;

export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function spec(network: RunNetwork, over: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    runId,
    rolloutId: `${runId}.task.${Math.random().toString(36).slice(2, 8)}.1`,
    image,
    workdir: '/workspace',
    resources: { cpus: 1, memoryMb: 256, pids: 256 },
    network,
    lifetimeSec: 300,
    ...over,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<PodFailure> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof PodFailure) return err;
    throw err;
  }
  throw new Error('expected a PodFailure');
}

beforeAll(async () => {
  const local = await workspaceImage();
  fake = await new FakeKubeApi({
    forbiddenNamespaces: ['locked'],
    podStatusOverride: (pod) => {
      const inject = pod.metadata?.annotations?.['openforge.rollout']?.split('.')[1];
      if (inject === 'unschedulable') {
        return {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient memory.' }],
        };
      }
      if (inject === 'backoff') {
        return {
          phase: 'Pending',
          containerStatuses: [
            {
              name: 'rollout',
              image: pod.spec!.containers[0]!.image!,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } },
            },
          ],
        };
      }
      if (inject === 'crashloop') {
        return {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'rollout',
              image: pod.spec!.containers[0]!.image!,
              imageID: '',
              ready: false,
              restartCount: 5,
              state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } },
            },
          ],
        };
      }
      if (inject === 'oom') {
        return {
          phase: 'Failed',
          containerStatuses: [
            {
              name: 'rollout',
              image: pod.spec!.containers[0]!.image!,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
            },
          ],
        };
      }
      return undefined;
    },
  }).start();
  // What `openforge images push --registry` does before the push; the fake kubelet "pulls" from the local engine.
  image = local.image;
  await tagForRegistry(fake.docker, image, REGISTRY);
  settings = KubernetesSectionSchema.parse({
    kubeconfig: fake.kubeconfig(),
    context: 'fake',
    namespace: 'rollouts',
    images: { registry: REGISTRY },
    proxy: { address: `${fake.gateway}:${await freePort(fake.gateway)}` },
  });
  backend = new KubernetesBackend(settings);
});

afterAll(async () => {
  await backend?.removeRun(runId).catch(() => undefined);
  await fake?.docker
    .getImage(`${REGISTRY}/${image}`)
    .remove({ noprune: true })
    .catch(() => undefined);
  await fake?.stop();
});

describe('KubernetesBackend through the real client against the fake API server (pods run in Docker)', () => {
  it('passes its check with server-side dry runs that create nothing', async () => {
    await backend.check();
    expect(fake.requests.filter((r) => r.startsWith('POST'))).toEqual([
      'POST /api/v1/namespaces/rollouts/configmaps (dry run)',
      'POST /api/v1/namespaces/rollouts/pods (dry run)',
      'POST /apis/networking.k8s.io/v1/namespaces/rollouts/networkpolicies (dry run)',
    ]);
    expect(fake.list('pods')).toEqual([]);
  });

  it('refuses a namespace the user cannot write, naming it, before anything is created', async () => {
    const locked = new KubernetesBackend({ ...settings, namespace: 'locked' });
    const err = await locked.check().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/kubernetes\.namespace: you may not create objects in namespace "locked".*forbidden/s);
    expect(fake.list('configmaps', 'locked/')).toEqual([]);
  });

  describe('one rollout pod', () => {
    let box: Sandbox;
    let network: RunNetwork;
    beforeAll(async () => {
      network = await backend.prepareNetwork(runId, 'proxy-only');
      box = await backend.create(spec(network, { env: { FROM_SPEC: 'spec-env' } }));
    });

    it('makes the run owner, a proxy-only NetworkPolicy and a pod owned by the run', () => {
      const [owner] = fake.list('configmaps', 'rollouts/');
      const [policy] = fake.list('networkpolicies', 'rollouts/') as V1NetworkPolicy[];
      const pod = fake.list('pods', 'rollouts/').find((p) => p.metadata!.name === box.id) as V1Pod;
      expect(network).toMatchObject({ mode: 'proxy-only', proxyHost: fake.gateway });
      expect(policy!.spec!.egress).toEqual([{ to: [{ ipBlock: { cidr: `${fake.gateway}/32` } }], ports: [{ protocol: 'TCP', port: network.proxyPort }] }]);
      for (const owned of [policy!, pod])
        expect(owned.metadata!.ownerReferences).toEqual([expect.objectContaining({ kind: 'ConfigMap', uid: owner!.metadata!.uid })]);
      expect(pod.spec!.containers[0]!.image).toBe(`${REGISTRY}/${image}`);
    });

    it('runs commands over the exec WebSocket with their exit code, output, environment and working directory', async () => {
      const res = await box.exec(['sh', '-c', 'echo out; echo err >&2; echo $GREETING $FROM_SPEC; pwd; exit 3'], {
        env: { GREETING: 'hi there' },
        workdir: '/tmp',
      });
      expect(res).toMatchObject({ exitCode: 3, stdout: 'out\nhi there spec-env\n/tmp\n', stderr: 'err\n', timedOut: false });
      expect((await box.exec(['true'])).exitCode).toBe(0);
    });

    it('feeds stdin to a command (v5 close frame ends it)', async () => {
      const res = await box.exec(['sh', '-c', 'tr a-z A-Z; echo after-eof'], { stdin: 'shout\n' });
      expect(res.stdout).toBe('SHOUT\nafter-eof\n');
    });

    it('kills a command at its timeout inside the pod', async () => {
      const res = await box.exec(['sleep', '30'], { timeoutSec: 1 });
      expect(res.timedOut).toBe(true);
      const ps = await box.exec(['sh', '-c', 'ps -eo comm | grep -c "^sleep$" || true']);
      expect(ps.stdout.trim()).toBe('1'); // only the pod's own lifetime sleep is left
    });

    it('copies files in and out as tar streams through exec', async () => {
      const host = mkdtempSync(path.join(os.tmpdir(), 'of-k8s-copy-'));
      mkdirSync(path.join(host, 'in', 'sub'), { recursive: true });
      writeFileSync(path.join(host, 'in', 'sub', 'run.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
      writeFileSync(path.join(host, 'in', 'data.bin'), Buffer.from([0, 1, 2, 255]));
      await box.copyIn(path.join(host, 'in'), '/opt/copied');
      await box.writeFiles([{ path: '/logs/agent/note.txt', content: 'written\n' }]);
      expect((await box.exec(['/opt/copied/sub/run.sh'])).stdout).toBe('ran\n');
      expect(await box.copyOut('/logs/agent', path.join(host, 'out'))).toBe(true);
      expect(readFileSync(path.join(host, 'out', 'agent', 'note.txt'), 'utf8')).toBe('written\n');
      expect(await box.copyOut('/opt/copied/data.bin', path.join(host, 'bin'))).toBe(true);
      expect([...readFileSync(path.join(host, 'bin', 'data.bin'))]).toEqual([0, 1, 2, 255]);
      expect(await box.copyOut('/no/such/path', path.join(host, 'none'))).toBe(false);
    });

    it('puts files in, runs the command and brings a folder out in one exec', async () => {
      const dest = mkdtempSync(path.join(os.tmpdir(), 'of-k8s-step-'));
      const res = await box.exec(['sh', '-c', 'cat /opt/step/in.txt > /opt/step/out.txt; exit 2'], {
        emptyFirst: ['/opt/step'],
        filesIn: [{ path: '/opt/step/in.txt', content: 'through one exec\n' }],
        copyOutAfter: { sandboxPath: '/opt/step', hostDir: dest },
        workdir: '/tmp',
      });
      expect(res).toMatchObject({ exitCode: 2, copiedOut: true });
      expect(readFileSync(path.join(dest, 'step', 'out.txt'), 'utf8')).toBe('through one exec\n');
    });

    it('an exec the API server refuses did not start: CommandNotStartedError, nothing ran, the next exec works', async () => {
      fake.refuseExecs(1);
      const refused = await box.exec(['touch', '/tmp/ran']).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(CommandNotStartedError);
      expect((refused as CommandNotStartedError).type).toBe('infrastructure');
      expect((refused as Error).message).toContain(`exec in pod ${box.id} did not start: Unexpected server response: 503`);
      expect((await box.exec(['test', '-e', '/tmp/ran'])).exitCode).toBe(1);
    });

    it('reads the pod log through the API', async () => {
      expect(typeof (await box.logs())).toBe('string');
    });
  });

  describe('typed failures from the pod status', () => {
    const network: RunNetwork = { mode: 'none' };

    it('an image that was never pushed: ErrImagePull, before anything runs', async () => {
      const failure = await failureOf(backend.create(spec(network, { image: 'openforge/never-pushed:0000' })));
      expect(failure.reason).toMatch(/^(ErrImagePull|ImagePullBackOff)$/);
      expect(failure.type).toBe('infrastructure');
      expect(failure.message).toContain(`${REGISTRY}/openforge/never-pushed:0000`);
      expect(failure.message).toContain('openforge images push');
    });

    it.each([
      ['backoff', 'ImagePullBackOff', 'infrastructure'],
      ['unschedulable', 'Unschedulable', 'infrastructure'],
      ['oom', 'OOMKilled', 'oom_killed'],
      ['crashloop', 'CrashLoopBackOff', 'infrastructure'],
    ])('%s: reports %s as %s', async (inject, reason, type) => {
      const failure = await failureOf(backend.create(spec(network, { rolloutId: `${runId}.${inject}.0.1` })));
      expect({ reason: failure.reason, type: failure.type }).toEqual({ reason, type });
      if (reason === 'Unschedulable') expect(failure.message).toContain('Insufficient memory');
    });

    it('a pod past its activeDeadlineSeconds: DeadlineExceeded ends the exec in flight', async () => {
      const box = await backend.create(spec(network, { lifetimeSec: 3 }));
      const failure = await failureOf(box.exec(['sleep', '60']));
      expect(failure.reason).toBe('DeadlineExceeded');
      await box.remove();
    });

    it('leaves no pod of a failed start behind', () => {
      const names = fake.list('pods', 'rollouts/').map((p) => p.metadata!.annotations!['openforge.rollout']);
      expect(names.filter((n) => /\.(backoff|unschedulable|oom|crashloop)\./.test(n!))).toEqual([]);
    });
  });

  it('waits for an API server in an outage, shares one poll between waiters, and gives up after the wait it was given', async () => {
    const signal = new AbortController().signal;
    expect(await backend.waitUntilReachable(5_000, signal)).toBe(false);
    fake.outage = true;
    const seen = fake.requests.length;
    try {
      const started = Date.now();
      const waits = [backend.waitUntilReachable(20_000, signal), backend.waitUntilReachable(20_000, signal)];
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      fake.outage = false;
      expect(await Promise.all(waits)).toEqual([true, true]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
      // one poll for both waiters: a try every 0.5 s, not two
      expect(fake.requests.slice(seen).filter((r) => r.startsWith('GET /api/v1/namespaces/rollouts/pods')).length).toBeLessThanOrEqual(6);
      fake.outage = true;
      const gaveUp = await backend.waitUntilReachable(1_200, signal).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(gaveUp).toBeInstanceOf(BackendUnreachableError);
      expect((gaveUp as Error).message).toBe('the Kubernetes API server has not answered for 1 s (503: the server is currently unable to handle the request)');
    } finally {
      fake.outage = false;
    }
  });

  it('gives a harness install to the pod through an init container copying it from the layer image, mounted read-only', async () => {
    // Any image and folder will do for the mechanism: the workspace image's /etc/apt stands in for a harness layer.
    const box = await backend.create(spec({ mode: 'none' }, { mounts: [{ volume: 'harness', target: '/etc/apt', readOnly: true, image }] }));
    const pod = fake.list('pods', 'rollouts/').find((p) => p.metadata!.name === box.id) as V1Pod;
    expect(pod.spec!.initContainers![0]!.command).toEqual(['cp', '-a', '/etc/apt/.', '/openforge-harness-copy/']);
    expect((await box.exec(['test', '-f', '/etc/apt/sources.list'])).exitCode).toBe(0);
    const write = await box.exec(['touch', '/etc/apt/new-file']);
    expect(write.exitCode).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system/);
    await box.remove();
  });

  it('reap removes the runs whose orchestrator process is gone, and only those', async () => {
    const deadRun = `${runId}-dead`;
    const core = backend.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'rollouts', body: runOwnerConfigMap(deadRun, 'rollouts', `${os.hostname()}:999999999:0`) });
    await backend.create(spec({ mode: 'none' }, { runId: deadRun, rolloutId: `${deadRun}.t.0.1` }));
    const alive = await backend.create(spec({ mode: 'none' }));
    const report = await backend.reap();
    expect(report.containers).toBe(1);
    const left = fake.list('pods', 'rollouts/').map((p) => p.metadata!.name);
    expect(left).toContain(alive.id);
    expect(fake.list('configmaps', 'rollouts/').map((c) => c.metadata!.annotations!['openforge.run'])).toEqual([runId]);
    await alive.remove();
  });

  it("deleting the run's ConfigMap by hand removes its pods and policy through their owner references", async () => {
    const byHand = `${runId}-by-hand`;
    await backend.prepareNetwork(byHand, 'proxy-only');
    await backend.create(spec({ mode: 'none' }, { runId: byHand, rolloutId: `${byHand}.t.0.1` }));
    const ofRun = (kind: 'pods' | 'networkpolicies') => fake.list(kind, 'rollouts/').filter((o) => o.metadata!.labels!['openforge.run'] === byHand);
    expect([ofRun('pods').length, ofRun('networkpolicies').length]).toEqual([1, 1]);
    await backend.kc.makeApiClient(CoreV1Api).deleteNamespacedConfigMap({ name: `openforge-run-${byHand}`, namespace: 'rollouts' });
    expect([ofRun('pods').length, ofRun('networkpolicies').length]).toEqual([0, 0]);
  });

  it('removeRun deletes every pod and policy of the run, and its owner', async () => {
    await backend.create(spec({ mode: 'none' }));
    expect(fake.list('pods', 'rollouts/').length).toBeGreaterThan(0);
    await backend.removeRun(runId);
    expect(fake.list('pods', 'rollouts/')).toEqual([]);
    expect(fake.list('configmaps', 'rollouts/')).toEqual([]);
    expect(fake.list('networkpolicies', 'rollouts/')).toEqual([]);
    const left = await fake.docker.listContainers({ all: true, filters: { label: [`openforge.fake-kube=${fake.id}`] } });
    expect(left).toEqual([]);
  });
});

describe('kubeconfig problems are named before anything is created', () => {
  it('a missing kubeconfig file', () => {
    expect(() => new KubernetesBackend({ ...settings, kubeconfig: '/nonexistent/kubeconfig' })).toThrow(
      /kubernetes\.kubeconfig: \/nonexistent\/kubeconfig does not exist/,
    );
  });
  it('a context the kubeconfig does not have', () => {
    expect(() => new KubernetesBackend({ ...settings, context: 'prod' })).toThrow(/kubernetes\.context: no context "prod".*use one of: fake/s);
  });
});
