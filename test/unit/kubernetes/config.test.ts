import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../../src/config/run.js';
import { registryRef, splitRef } from '../../../src/sandbox/kubernetes/image-refs.js';
import { dnsLabel, labelValue } from '../../../src/sandbox/kubernetes/names.js';
import { parseQuantity } from '../../../src/sandbox/kubernetes/quantity.js';

function load(kubernetes: string, top = ''): () => unknown {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-k8s-cfg-')), 'run.yaml');
  writeFileSync(file, `tasks: suite\n${top}backend: kubernetes\n${kubernetes ? `kubernetes:\n${kubernetes}` : ''}`);
  return () => loadRunConfig(file);
}

const OK = '  images: { registry: registry.example.com/team }\n  proxy: { address: "10.0.0.5:8080" }\n';

describe('the kubernetes section of run.yaml', () => {
  it('fills defaults for a minimal section', () => {
    const { config } = load(OK)() as ReturnType<typeof loadRunConfig>;
    expect(config.kubernetes).toMatchObject({ namespace: 'default', max_pods: 16, harness_install: 'init-container', images: { pull_policy: 'IfNotPresent' } });
  });

  it('needs the section when the backend is kubernetes', () => {
    expect(load('')).toThrow(/backend: "kubernetes" needs a kubernetes section/);
  });

  it.each([
    ['  images: { registry: openforge }\n  proxy: { address: "10.0.0.5:8080" }\n', /kubernetes\.images\.registry: "openforge" names no registry host/],
    [
      '  images: { registry: "bad registry" }\n  proxy: { address: "10.0.0.5:8080" }\n',
      /kubernetes\.images\.registry: "bad registry" is not a registry reference/,
    ],
    [`${OK}  resources: { limits: { memory: 1GB } }\n`, /kubernetes\.resources\.limits\.memory: "1GB" is not a Kubernetes quantity/],
    [`${OK}  resources: { requests: { cpu: "-" } }\n`, /kubernetes\.resources\.requests\.cpu: "-" is not a Kubernetes quantity/],
    [`${OK}  resources: { requests: { cpu: "2" }, limits: { cpu: 500m } }\n`, /kubernetes\.resources\.requests\.cpu: request 2 is above the limit 500m/],
    ['  images: { registry: r.io }\n  proxy: { address: "proxy.svc:8080" }\n', /kubernetes\.proxy\.address: "proxy\.svc:8080" is not IPv4:port/],
    [`${OK}  namespace: Team_A\n`, /kubernetes\.namespace: a DNS label/],
    [`${OK}  tolerations: [{ effect: Sometimes }]\n`, /kubernetes\.tolerations\.0\.effect/],
    [`${OK}  max_pods: 0\n`, /kubernetes\.max_pods/],
  ])('rejects bad input naming the field: %#', (section, message) => {
    expect(load(section)).toThrow(message);
  });
});

describe('Kubernetes quantities', () => {
  it('parses what the API server accepts', () => {
    expect(parseQuantity('500m')).toBeCloseTo(0.5);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity('1.5')).toBe(1.5);
    expect(parseQuantity('512Mi')).toBe(512 * 2 ** 20);
    expect(parseQuantity('2G')).toBe(2e9);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(parseQuantity('.5Gi')).toBe(2 ** 29);
  });
  it('rejects what it rejects', () => {
    for (const bad of ['', '1GB', 'Mi', '1 Gi', ' 1', '1mi', '1.2.3', 'abc', '1KiB']) expect(parseQuantity(bad), bad).toBeUndefined();
  });
});

describe('names and image references', () => {
  it('turns rollout ids into valid, distinct pod names and label values', () => {
    const long = `run-20261202-170000-abcd.${'a'.repeat(80)}.0.1`;
    for (const id of ['run-1.task_A.0.1', long, `${long}x`]) {
      const name = dnsLabel('of', id);
      expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(name.length).toBeLessThanOrEqual(63);
      expect(labelValue(id)).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/);
      expect(labelValue(id).length).toBeLessThanOrEqual(63);
    }
    expect(dnsLabel('of', long)).not.toBe(dnsLabel('of', `${long}x`));
    expect(labelValue('run-1.task.0.1')).toBe('run-1.task.0.1');
  });

  it('prefixes local content tags with the registry and keeps references that name one', () => {
    expect(registryRef('registry.example.com/team', 'openforge/task-a:0123456789abcdef')).toBe('registry.example.com/team/openforge/task-a:0123456789abcdef');
    expect(registryRef('localhost:5000', 'openforge/base:ab')).toBe('localhost:5000/openforge/base:ab');
    expect(registryRef('localhost:5000', 'ghcr.io/org/img:1')).toBe('ghcr.io/org/img:1');
    expect(registryRef('localhost:5000', 'python:3.12')).toBe('localhost:5000/python:3.12');
    expect(splitRef('localhost:5000/openforge/base:ab')).toEqual({ repo: 'localhost:5000/openforge/base', tag: 'ab' });
    expect(splitRef('localhost:5000/openforge/base')).toEqual({ repo: 'localhost:5000/openforge/base', tag: 'latest' });
  });
});
