import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { LABEL_ROLLOUT, LABEL_RUN } from '../../src/sandbox/labels.js';
import type { SandboxSpec } from '../../src/sandbox/types.js';
import { WarmPool } from '../../src/sandbox/warm-pool.js';
import { workspaceImage } from '../helpers/docker.js';

let backend: DockerBackend;
let image: string;
const runId = `test-warm-pool-${process.pid}`;

function spec(rolloutId: string, env: Record<string, string> = { TASK: 'a' }): SandboxSpec {
  return { runId, rolloutId, image, env, workdir: '/workspace', resources: { cpus: 1, memoryMb: 256, pids: 256 }, network: { mode: 'none' }, lifetimeSec: 120 };
}

/** The run's containers as the engine lists them: id → rollout label. */
async function containersOfRun(): Promise<Map<string, string>> {
  const list = await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } });
  return new Map(list.map((c) => [c.Id, c.Labels[LABEL_ROLLOUT]!]));
}

async function until(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  ({ backend, image } = await workspaceImage());
});

afterAll(async () => {
  await backend.removeRun(runId);
});

describe('WarmPool over the real Docker engine', { timeout: 120_000 }, () => {
  it('hands over the container it started ahead, running and with the spec asked for', async () => {
    const pool = new WarmPool(backend);
    pool.warm(spec('later'));
    await until(async () => [...(await containersOfRun()).values()].some((r) => r.startsWith('warm-')));
    const [[warmId = ''] = []] = [...(await containersOfRun())].filter(([, r]) => r.startsWith('warm-'));

    const box = await pool.create(spec('rollout-1'));
    expect(box.id).toBe(warmId);
    const res = await box.exec(['sh', '-c', 'echo $TASK; pwd']);
    expect(res.stdout).toBe('a\n/workspace\n');
    expect(pool.stats).toEqual({ warm: 1, cold: 0, unused: 0 });
    expect(pool.idle).toBe(0);
    await box.remove();
  });

  it('starts a container on the spot for a spec nothing was warmed for, and removes the unused warm one at close', async () => {
    const pool = new WarmPool(backend);
    pool.warm(spec('later', { TASK: 'a' }));
    const box = await pool.create(spec('rollout-b', { TASK: 'b' }));
    expect((await box.exec(['sh', '-c', 'echo $TASK'])).stdout).toBe('b\n');
    expect(pool.stats).toMatchObject({ warm: 0, cold: 1 });
    expect(pool.idle).toBe(1);

    await pool.close();
    expect(pool.stats.unused).toBe(1);
    const left = await containersOfRun();
    expect([...left.values()].filter((r) => r.startsWith('warm-'))).toEqual([]);
    expect(left.get(box.id)).toBe('rollout-b');
    pool.warm(spec('after-close')); // ignored: nothing starts after close
    expect(pool.idle).toBe(0);
    await box.remove();
  });

  it('waits for a warm container that is still starting instead of starting a second one', async () => {
    const pool = new WarmPool(backend);
    pool.warm(spec('later'));
    const box = await pool.create(spec('rollout-2')); // at once: the warm one is still being created
    expect(pool.stats).toEqual({ warm: 1, cold: 0, unused: 0 });
    expect([...(await containersOfRun()).keys()]).toEqual([box.id]);
    await box.remove();
  });

  it('starts warm containers only after the starts a caller waits for', async () => {
    const pool = new WarmPool(backend);
    const cold = pool.create(spec('rollout-now', { TASK: 'now' }));
    pool.warm(spec('later'));
    const box = await cold;
    await until(async () => [...(await containersOfRun()).values()].some((r) => r.startsWith('warm-')));
    const [[warmId = ''] = []] = [...(await containersOfRun())].filter(([, r]) => r.startsWith('warm-'));
    const warmCreated = Date.parse((await backend.docker.getContainer(warmId).inspect()).Created);
    const coldStarted = Date.parse((await backend.docker.getContainer(box.id).inspect()).State.StartedAt);
    expect(warmCreated).toBeGreaterThanOrEqual(coldStarted);
    await pool.close();
    await box.remove();
  });

  it('starts a warm container at once when it is taken before its turn came', async () => {
    const pool = new WarmPool(backend);
    let coldReadyAt = 0;
    const cold = pool.create(spec('rollout-other', { TASK: 'other' })).then((box) => ((coldReadyAt = Date.now()), box));
    pool.warm(spec('later'));
    const box = await pool.create(spec('rollout-5')); // its warm-up was waiting for the cold start above
    const other = await cold;
    const warmCreated = Date.parse((await backend.docker.getContainer(box.id).inspect()).Created);
    expect(warmCreated).toBeLessThan(coldReadyAt);
    expect(pool.stats).toEqual({ warm: 1, cold: 1, unused: 0 });
    await Promise.all([box.remove(), other.remove()]);
  });

  it('removes a warm container nobody took within its idle limit; the next create starts its own', async () => {
    const pool = new WarmPool(backend, { maxIdleSec: 2 });
    pool.warm(spec('later'));
    await until(async () => pool.stats.unused === 1);
    await until(async () => (await containersOfRun()).size === 0);
    const box = await pool.create(spec('rollout-3'));
    expect(pool.stats).toEqual({ warm: 0, cold: 1, unused: 1 });
    await box.remove();
  });

  it('falls back to a cold start when warming failed, and reports that start’s own error', async () => {
    const pool = new WarmPool(backend);
    const missing = { ...spec('later'), image: 'openforge/no-such-image:0' };
    pool.warm(missing);
    await expect(pool.create({ ...missing, rolloutId: 'rollout-4' })).rejects.toThrow(/image openforge\/no-such-image:0 not found/);
    expect(pool.stats).toMatchObject({ warm: 0, cold: 1 });
  });
});
