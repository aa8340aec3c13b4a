import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store.js';

let store: Store;
afterEach(async () => store?.close());

async function serviceRun(id: string, status: 'running' | 'finished' = 'running'): Promise<void> {
  await store.createRun(id, { service: true, config: {} });
  if (status !== 'running') await store.setRunStatus(id, status);
}

describe('the rollout service in the store (service_jobs, service_weight_versions)', () => {
  it('keeps submitted rollouts in submission order, their status and result, per run', async () => {
    store = await Store.open(':memory:');
    await serviceRun('svc-a');
    const job = (i: number) => ({
      id: `svc-a.t.${i}`,
      runId: 'svc-a',
      group: 't@1',
      taskId: 't',
      sampleIndex: i,
      request: { tasks: '/x', n: 2 },
      weightVersion: '3',
    });
    await store.serviceJobs.add([job(0), job(1)]);
    await store.serviceJobs.add([job(2)]);
    await store.serviceJobs.update('svc-a.t.1', {
      status: 'finished',
      rolloutId: 'svc-a.t.1.2',
      attempts: 2,
      restarts: 1,
      reward: 1,
      staleness: 1,
      stale: true,
    });
    const jobs = await store.serviceJobs.ofRun('svc-a');
    expect(jobs.map((j) => [j.id, j.seq, j.status])).toEqual([
      ['svc-a.t.0', 1, 'queued'],
      ['svc-a.t.1', 2, 'finished'],
      ['svc-a.t.2', 3, 'queued'],
    ]);
    expect(jobs[1]).toMatchObject({
      rolloutId: 'svc-a.t.1.2',
      attempts: 2,
      restarts: 1,
      reward: 1,
      staleness: 1,
      stale: true,
      weightVersion: '3',
      request: { tasks: '/x', n: 2 },
    });
    // a slot is stored once: the same id again fails, and the whole request with it
    await expect(store.serviceJobs.add([job(3), job(0)])).rejects.toThrow(/UNIQUE/);
    expect(await store.serviceJobs.ofRun('svc-a')).toHaveLength(3);
  });

  it('finds the latest service run a killed service left, not a finished one nor a batch run', async () => {
    store = await Store.open(':memory:');
    expect(await store.serviceJobs.unfinishedServiceRun()).toBeUndefined();
    await serviceRun('svc-old', 'finished');
    await store.createRun('run-batch', { hash: 'h', config: {} });
    expect(await store.serviceJobs.unfinishedServiceRun()).toBeUndefined();
    await serviceRun('svc-killed');
    expect(await store.serviceJobs.unfinishedServiceRun()).toBe('svc-killed');
  });

  it('abandons the attempts a killed service left live and says where the next attempt starts', async () => {
    store = await Store.open(':memory:');
    await serviceRun('svc-a');
    for (const attempt of [1, 2]) {
      await store.addRollout({ id: `svc-a.t.0.${attempt}`, runId: 'svc-a', taskId: 't', sampleIndex: 0, attempt, harness: 'forge-agent' });
    }
    await store.updateRollout('svc-a.t.0.1', { status: 'error', errorType: 'infrastructure' });
    await store.updateRollout('svc-a.t.0.2', { status: 'running' });
    expect(await store.serviceJobs.abandonLiveAttempts('svc-a', 't', 0, 'killed')).toBe(2);
    expect((await store.getRollout('svc-a.t.0.1'))?.status).toBe('error');
    expect(await store.getRollout('svc-a.t.0.2')).toMatchObject({ status: 'abandoned', errorMessage: 'killed' });
    expect(await store.serviceJobs.abandonLiveAttempts('svc-a', 't', 1, 'killed')).toBe(0);
  });

  it('keeps the weight versions resumes named, in order', async () => {
    store = await Store.open(':memory:');
    await serviceRun('svc-a');
    await serviceRun('svc-b');
    for (const v of ['1', '2', '10']) await store.serviceJobs.addWeightVersion('svc-a', v);
    await store.serviceJobs.addWeightVersion('svc-b', 'x');
    expect(await store.serviceJobs.weightVersions('svc-a')).toEqual(['1', '2', '10']);
    expect(await store.serviceJobs.weightVersions('svc-b')).toEqual(['x']);
  });
});
