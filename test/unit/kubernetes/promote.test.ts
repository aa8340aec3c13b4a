import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { promote } from '../../../src/config/promote.js';
import { loadRunConfig } from '../../../src/config/run.js';

const LOCAL = `# my run
tasks: suite   # the tasks
harness: forge-agent
rollouts_per_task: 2
output: runs
`;

function workspace(): { dir: string; local: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-promote-'));
  mkdirSync(path.join(dir, 'suite'));
  mkdirSync(path.join(dir, 'cluster'));
  writeFileSync(path.join(dir, 'run.yaml'), LOCAL);
  return { dir, local: path.join(dir, 'run.yaml') };
}

const FLAGS = { registry: 'registry.example.com/team', proxyAddress: '172.18.0.1:8080', namespace: 'rl' };

describe('openforge promote', () => {
  it('writes the same run with backend: kubernetes, paths rebased to the new file, comments kept, and lists the changes', () => {
    const { dir, local } = workspace();
    const target = path.join(dir, 'cluster', 'cluster.yaml');
    const result = promote(local, target, FLAGS);
    expect(result.changes).toEqual([
      '~ tasks: "suite" → "../suite"',
      '~ output: "runs" → "../runs"',
      '+ backend: "kubernetes"',
      '+ kubernetes.images.registry: "registry.example.com/team"',
      '+ kubernetes.namespace: "rl"',
      '+ kubernetes.proxy.address: "172.18.0.1:8080"',
    ]);
    expect(result.text).toContain('# the tasks');
    writeFileSync(target, result.text);
    const cluster = loadRunConfig(target);
    const original = loadRunConfig(local);
    expect(cluster.taskPaths).toEqual(original.taskPaths);
    expect(cluster.outputDir).toBe(original.outputDir);
    expect(cluster.config).toMatchObject({
      backend: 'kubernetes',
      harness: 'forge-agent',
      rollouts_per_task: 2,
      kubernetes: { namespace: 'rl', images: { registry: FLAGS.registry } },
    });
  });

  it('promoting again carries a local change over and keeps the cluster settings', () => {
    const { dir, local } = workspace();
    const target = path.join(dir, 'cluster', 'cluster.yaml');
    writeFileSync(target, promote(local, target, { ...FLAGS, context: 'kind-openforge' }).text);
    writeFileSync(local, LOCAL.replace('rollouts_per_task: 2', 'rollouts_per_task: 8'));
    const again = promote(local, target, {});
    expect(again.changes).toEqual(['~ rollouts_per_task: 2 → 8']);
    expect(again.loaded.config.kubernetes).toMatchObject({ context: 'kind-openforge', namespace: 'rl', proxy: { address: FLAGS.proxyAddress } });
  });

  it('names what is missing or wrong, and writes nothing', () => {
    const { dir, local } = workspace();
    const target = path.join(dir, 'cluster', 'cluster.yaml');
    expect(() => promote(local, target, { proxyAddress: '172.18.0.1:8080' })).toThrow(/kubernetes\.images\.registry is not set[\s\S]*--registry/);
    expect(() => promote(local, target, { registry: 'r.io' })).toThrow(/kubernetes\.proxy\.address is not set[\s\S]*--proxy-address/);
    expect(() => promote(local, target, { ...FLAGS, registry: 'team' })).toThrow(/kubernetes\.images\.registry: "team" names no registry host/);
    expect(() => promote(local, target, { ...FLAGS, namespace: 'Bad_NS' })).toThrow(/kubernetes\.namespace/);
    expect(() => promote(local, local, FLAGS)).toThrow(/--to names the local file itself/);
    expect(existsSync(target)).toBe(false);
    expect(readFileSync(local, 'utf8')).toBe(LOCAL);
  });
});
