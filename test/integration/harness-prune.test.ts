import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneHarnessLayer } from '../../src/sandbox/docker/harness-volume.js';
import { LABEL_OWNER } from '../../src/sandbox/labels.js';
import { workspaceImage } from '../helpers/docker.js';

// A layer name of this test's own: pruning is scoped to one layer, so real layers are never touched.
const LAYER = `prunetest${process.pid}`;
const hash = (c: string) => c.repeat(16);
const volumeOf = (layer: string, h: string) => `openforge-harness-${layer}-${h}`;
const imageOf = (layer: string, h: string) => `openforge/harness-${layer}:${h}`;

const CURRENT = volumeOf(LAYER, hash('a'));
const OLD = volumeOf(LAYER, hash('b'));
const OLD_IN_USE = volumeOf(LAYER, hash('c'));
const OTHER_LAYER = volumeOf(`${LAYER}-x`, hash('b'));
const UNLABELLED = volumeOf(LAYER, hash('d'));

let docker: Docker;
let container: Docker.Container;

beforeAll(async () => {
  const { backend, image } = await workspaceImage();
  docker = backend.docker;
  const label = (layer: string, h: string) => ({ 'openforge.image': imageOf(layer, h) });
  await docker.createVolume({ Name: CURRENT, Labels: label(LAYER, hash('a')) });
  await docker.createVolume({ Name: OLD, Labels: label(LAYER, hash('b')) });
  await docker.createVolume({ Name: OLD_IN_USE, Labels: label(LAYER, hash('c')) });
  await docker.createVolume({ Name: OTHER_LAYER, Labels: label(`${LAYER}-x`, hash('b')) });
  await docker.createVolume({ Name: UNLABELLED });
  for (const h of [hash('a'), hash('b')]) await docker.getImage(image).tag({ repo: `openforge/harness-${LAYER}`, tag: h });
  // A stopped container still references its volume: the engine refuses to remove it.
  container = await docker.createContainer({
    Image: image,
    Cmd: ['true'],
    Labels: { [LABEL_OWNER]: `test-${LAYER}` },
    HostConfig: { Mounts: [{ Type: 'volume', Source: OLD_IN_USE, Target: '/opt/harness/x', ReadOnly: true }] },
  });
}, 600_000);

afterAll(async () => {
  await container?.remove({ force: true }).catch(() => undefined);
  for (const v of [CURRENT, OLD, OLD_IN_USE, OTHER_LAYER, UNLABELLED])
    await docker
      ?.getVolume(v)
      .remove()
      .catch(() => undefined);
  for (const h of [hash('a'), hash('b')])
    await docker
      ?.getImage(imageOf(LAYER, h))
      .remove()
      .catch(() => undefined);
});

async function volumeNames(): Promise<string[]> {
  const { Volumes } = await docker.listVolumes({ filters: { name: [`openforge-harness-${LAYER}`] } });
  return (Volumes ?? []).map((v) => v.Name).sort();
}

describe('pruning harness layers of earlier versions', () => {
  it("removes the layer's old volumes and images, keeps the current one and those a container uses", async () => {
    const result = await pruneHarnessLayer(docker, LAYER, imageOf(LAYER, hash('a')));
    expect(result.removed.sort()).toEqual([imageOf(LAYER, hash('b')), OLD].sort());
    expect(result.inUse).toEqual([OLD_IN_USE]);
    // Another layer whose name starts the same, and a volume OpenForge did not label, are left alone.
    expect(await volumeNames()).toEqual([CURRENT, OLD_IN_USE, OTHER_LAYER, UNLABELLED].sort());
    const tags = (await docker.listImages({ filters: { reference: [`openforge/harness-${LAYER}`] } })).flatMap((i) => i.RepoTags ?? []);
    expect(tags).toEqual([imageOf(LAYER, hash('a'))]);
  });

  it('removes a volume once the container that used it is gone, and is idempotent', async () => {
    await container.remove({ force: true });
    expect(await pruneHarnessLayer(docker, LAYER, imageOf(LAYER, hash('a')))).toEqual({ removed: [OLD_IN_USE], inUse: [] });
    expect(await pruneHarnessLayer(docker, LAYER, imageOf(LAYER, hash('a')))).toEqual({ removed: [], inUse: [] });
    expect(await volumeNames()).toEqual([CURRENT, OTHER_LAYER, UNLABELLED].sort());
  });
});
