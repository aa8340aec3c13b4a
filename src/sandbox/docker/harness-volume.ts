import type Docker from 'dockerode';
import { RolloutError, errorMessage } from '../../util/errors.js';
import { LABEL_OWNER } from '../labels.js';
import { ownerLabel } from '../../util/process-owner.js';
import { statusOf } from './errors.js';

const POPULATE_TIMEOUT_MS = 600_000;

/**
 * Copies an image's install folder (a harness layer's ~1 GB install, the verifier's tools) into a named
 * volume once, so every rollout container mounts it read-only instead of carrying it in its own image. The copy is explicit (`cp -a` to
 * a mount point the image does not have) rather than Docker's copy-on-first-mount, so a copy cut short
 * by a killed process is detected by its missing marker and redone; flock serialises populators across
 * processes.
 */
export async function populateVolumeFromImage(docker: Docker, image: string, volume: string, installDir: string): Promise<void> {
  await docker.createVolume({ Name: volume, Labels: { 'openforge.image': image } });
  const script = [
    'test -f /vol/.openforge-populated && exit 0',
    'find /vol -mindepth 1 -maxdepth 1 ! -name .openforge-lock -exec rm -rf {} +',
    `cp -a ${installDir}/. /vol/`,
    'touch /vol/.openforge-populated',
  ].join('\n');
  const container = await docker.createContainer({
    Image: image,
    Cmd: ['flock', '/vol/.openforge-lock', 'sh', '-ec', script],
    Labels: { [LABEL_OWNER]: ownerLabel(), 'openforge.populate': volume },
    HostConfig: { NetworkMode: 'none', Mounts: [{ Type: 'volume', Source: volume, Target: '/vol' }] },
  });
  try {
    await container.start();
    const result = (await withTimeout(container.wait(), POPULATE_TIMEOUT_MS)) as { StatusCode?: number } | undefined;
    if (result?.StatusCode !== 0) {
      const logs = ((await container.logs({ stdout: true, stderr: true })) as unknown as Buffer).toString('utf8');
      throw new Error(`exit ${result?.StatusCode ?? 'none (timed out)'}: ${logs.trim().slice(-2000)}`);
    }
  } catch (err) {
    throw new RolloutError('build', `populating the volume ${volume} from ${image} failed: ${errorMessage(err)}`);
  } finally {
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface HarnessPruneResult {
  /** Volumes and images of earlier versions of the layer that were removed. */
  removed: string[];
  /** Earlier versions kept because a container (running or stopped) still uses them. */
  inUse: string[];
}

/**
 * Removes the volumes and images of a harness layer's earlier versions (`openforge-harness-<name>-<hash>`,
 * `openforge/harness-<name>:<hash>` with a hash other than the current one). The engine itself refuses to
 * remove one a container still references (409), so a rollout of an older OpenForge keeps its layer; those
 * are reported in `inUse`.
 */
export async function pruneHarnessLayer(docker: Docker, name: string, currentImage: string): Promise<HarnessPruneResult> {
  const result: HarnessPruneResult = { removed: [], inUse: [] };
  const remove = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
      result.removed.push(what);
    } catch (err) {
      const status = statusOf(err);
      if (status === 409) result.inUse.push(what);
      else if (status !== 404) throw err;
    }
  };
  const current = currentImage.split(':')[1];
  const isOldHash = (hash: string | undefined) => hash !== undefined && /^[0-9a-f]+$/.test(hash) && hash !== current;

  const prefix = `openforge-harness-${name}-`;
  const { Volumes } = await docker.listVolumes({ filters: { name: [prefix] } });
  for (const v of Volumes ?? []) {
    if (!v.Name.startsWith(prefix) || !isOldHash(v.Name.slice(prefix.length))) continue;
    if (!(v.Labels?.['openforge.image'] ?? '').startsWith(`openforge/harness-${name}:`)) continue;
    await remove(v.Name, () => docker.getVolume(v.Name).remove());
  }

  const repo = `openforge/harness-${name}`;
  for (const image of await docker.listImages({ filters: { reference: [repo] } })) {
    for (const tag of image.RepoTags ?? []) {
      const [ref, hash] = tag.split(':');
      if (ref === repo && isOldHash(hash)) await remove(tag, () => docker.getImage(tag).remove());
    }
  }
  return result;
}
