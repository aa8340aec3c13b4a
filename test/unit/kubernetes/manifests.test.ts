import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { loadRunConfig } from '../../../src/config/run.js';
import { renderRun } from '../../../src/rollout/render-kubernetes.js';
import { captureStdout } from '../../helpers/stdout.js';
import { validateManifest } from '../../helpers/k8s-schemas.js';
import { k8sCommand } from '../../../src/cli/commands/k8s.js';

const CLAW_BASIC = path.resolve('envs/claw-basic');

function runYaml(body: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-k8s-')), 'run.yaml');
  writeFileSync(file, `tasks: ${CLAW_BASIC}\n${body}`);
  return file;
}

const CLUSTER_BASE = `backend: kubernetes
kubernetes:
  namespace: rl
  proxy: { address: "10.1.2.3:8080" }
`;
const CLUSTER = `${CLUSTER_BASE}  images: { registry: registry.example.com/team }
`;

describe('openforge k8s render', () => {
  it('renders a run as an owner ConfigMap, a NetworkPolicy and one Pod per rollout, all valid against the Kubernetes schemas', () => {
    const objects = renderRun(loadRunConfig(runYaml(`rollouts_per_task: 2\n${CLUSTER}`)));
    const tasks = objects.filter((o) => o.kind === 'Pod').length / 2;
    expect(tasks).toBeGreaterThanOrEqual(12);
    expect(objects.map((o) => o.kind).slice(0, 2)).toEqual(['ConfigMap', 'NetworkPolicy']);
    for (const o of objects) expect(() => validateManifest(o), `${o.kind} ${o.metadata?.name}`).not.toThrow();
    const names = objects.map((o) => `${o.kind}/${o.metadata!.name}`);
    expect(new Set(names).size).toBe(names.length);

    const pod = objects.find((o): o is V1Pod => o.kind === 'Pod')!;
    expect(pod.spec).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false, activeDeadlineSeconds: expect.any(Number) });
    const main = pod.spec!.containers[0]!;
    expect(main.image).toMatch(/^registry\.example\.com\/team\/openforge\/(task-[a-z0-9-]+|workspace):[0-9a-f]{16}$/);
    expect(main.resources).toEqual({ limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } }); // the task's own memory_mb
    expect(main.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.metadata!.ownerReferences).toEqual([expect.objectContaining({ kind: 'ConfigMap', name: objects[0]!.metadata!.name })]);
    expect(pod.metadata!.labels!['openforge.run']).toBe('run-rendered');
  });

  it('lets proxy-only pods reach the proxy address and nothing else; none reaches nothing; public anything', () => {
    const policyOf = (network: string) => renderRun(loadRunConfig(runYaml(`harness: oracle\nnetwork: ${network}\n${CLUSTER}`)))[1] as V1NetworkPolicy;
    expect(policyOf('proxy-only').spec!.egress).toEqual([{ to: [{ ipBlock: { cidr: '10.1.2.3/32' } }], ports: [{ protocol: 'TCP', port: 8080 }] }]);
    expect(policyOf('none').spec!.egress).toEqual([]);
    expect(policyOf('public').spec!.egress).toEqual([{}]);
    for (const n of ['proxy-only', 'none', 'public']) {
      expect(policyOf(n).spec!.ingress).toEqual([]);
      validateManifest(policyOf(n));
    }
  });

  it('puts scheduling, isolation and resource settings on every pod', () => {
    const objects = renderRun(
      loadRunConfig(
        runYaml(`harness: oracle
${CLUSTER_BASE}  runtime_class: gvisor
  node_selector: { pool: rollouts }
  tolerations: [{ key: dedicated, operator: Equal, value: rl, effect: NoSchedule }]
  run_as_user: 1000
  images: { registry: "localhost:5000", pull_policy: Always, pull_secrets: [regcred] }
  resources: { requests: { cpu: 250m, memory: 512Mi }, limits: { ephemeral-storage: 2Gi } }
`),
      ),
    );
    const pod = objects.find((o): o is V1Pod => o.kind === 'Pod')!;
    validateManifest(pod);
    expect(pod.spec).toMatchObject({
      runtimeClassName: 'gvisor',
      nodeSelector: { pool: 'rollouts' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'rl', effect: 'NoSchedule' }],
      imagePullSecrets: [{ name: 'regcred' }],
      securityContext: { runAsNonRoot: true, runAsUser: 1000 },
    });
    expect(pod.spec!.containers[0]!.image).toMatch(/^localhost:5000\/openforge\//);
    expect(pod.spec!.containers[0]!.imagePullPolicy).toBe('Always');
    expect(pod.spec!.containers[0]!.resources).toEqual({
      limits: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '2Gi' },
      requests: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '2Gi' },
    });
  });

  it("gives the verifier's tools and a harness layer to the pod by an init container copy, or as an image volume", () => {
    const podOf = (extra: string) => renderRun(loadRunConfig(runYaml(`harness: qwen-code\n${CLUSTER}${extra}`))).find((o): o is V1Pod => o.kind === 'Pod')!;
    const copied = podOf('');
    validateManifest(copied);
    const [tools, init] = copied.spec!.initContainers!;
    expect(tools!.image).toMatch(/^registry\.example\.com\/team\/openforge\/verifier-tools:[0-9a-f]{16}$/);
    expect(tools!.command).toEqual(['cp', '-a', '/.openforge-tools/.', '/openforge-harness-copy/']);
    expect(copied.spec!.containers[0]!.volumeMounts).toContainEqual({ name: 'layer-0', mountPath: '/.openforge-tools', readOnly: true });
    expect(init!.image).toMatch(/^registry\.example\.com\/team\/openforge\/harness-qwen-code:[0-9a-f]{16}$/);
    expect(init!.command).toEqual(['cp', '-a', '/opt/harness/qwen-code/.', '/openforge-harness-copy/']);
    expect(copied.spec!.containers[0]!.volumeMounts).toContainEqual({ name: 'layer-1', mountPath: '/opt/harness/qwen-code', readOnly: true });
    expect(copied.spec!.volumes).toContainEqual({ name: 'layer-1', emptyDir: {} });

    const mounted = podOf('  harness_install: image-volume\n');
    validateManifest(mounted);
    expect(mounted.spec!.initContainers).toBeUndefined();
    expect(mounted.spec!.volumes).toContainEqual({ name: 'layer-1', image: { reference: init!.image, pullPolicy: 'IfNotPresent' } });
    expect(mounted.spec!.containers[0]!.volumeMounts).toContainEqual({
      name: 'layer-1',
      mountPath: '/opt/harness/qwen-code',
      readOnly: true,
      subPath: 'opt/harness/qwen-code',
    });
  });

  it('prints the manifests as multi-document YAML that parses back to the same objects', async () => {
    const file = runYaml(`harness: oracle\n${CLUSTER}`);
    const read = captureStdout();
    await k8sCommand().parseAsync(['render', file], { from: 'user' });
    vi.restoreAllMocks();
    const out = read();
    const docs = parseAllDocuments(out).map((d) => d.toJSON());
    expect(docs).toEqual(JSON.parse(JSON.stringify(renderRun(loadRunConfig(file)))));
    for (const d of docs) validateManifest(d);
  });
});
