import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store.js';
import type { RecordedCall } from '../../../src/records/call.js';

function call(seq: number, over: Partial<RecordedCall> = {}): RecordedCall {
  return {
    rolloutId: 'ro-1',
    seq,
    label: 'policy',
    protocol: 'chat',
    model: 'policy',
    stream: true,
    request: { messages: [{ role: 'user', content: 'hi' }] },
    response: { choices: [] },
    status: 200,
    error: null,
    promptTokenIds: [1, 2, 300000, -1],
    completionTokenIds: [7, 8],
    logprobs: [-0.125, -1e-9],
    finishReason: 'stop',
    upstream: 'http://u/v1',
    startedAt: 1000,
    ttfbMs: 1.5,
    durationMs: 3.25,
    missingTokenIds: false,
    ...over,
  };
}

describe('Store (real SQLite file, WAL)', () => {
  it('round-trips calls with exact token ids and logprobs, and survives reopening', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-store-')), 'openforge.db');
    let store = await Store.open(file);
    await store.recordCall(call(1));
    await store.recordCall(
      call(2, { promptTokenIds: null, completionTokenIds: null, logprobs: null, missingTokenIds: true, response: null, status: 502, error: 'upstream died' }),
    );
    await store.close();
    store = await Store.open(file);
    const calls = await store.listCalls('ro-1');
    expect(calls[0]).toEqual(call(1));
    expect(calls[1]).toMatchObject({ seq: 2, promptTokenIds: null, missingTokenIds: true, status: 502, error: 'upstream died', response: null });
    await expect(store.recordCall(call(1))).rejects.toThrow(/UNIQUE/);
    expect((await store.countCalls(['ro-1', 'other'])).get('ro-1')).toBe(2);
    await store.close();
  });

  it('tracks runs and the latest attempt of each rollout slot', async () => {
    const store = await Store.open(path.join(mkdtempSync(path.join(os.tmpdir(), 'of-store-')), 'x.db'));
    await store.createRun('run-1', { hash: 'h' });
    expect((await store.latestRun())?.status).toBe('running');
    await store.addRollout({ id: 'a1', runId: 'run-1', taskId: 't', sampleIndex: 0, attempt: 1, harness: 'h' });
    await store.addRollout({ id: 'a2', runId: 'run-1', taskId: 't', sampleIndex: 0, attempt: 2, harness: 'h' });
    await store.addRollout({ id: 'b1', runId: 'run-1', taskId: 't', sampleIndex: 1, attempt: 1, harness: 'h' });
    await store.updateRollout('a2', { status: 'finished', reward: 0.5, rewardDetails: { checks: 2 }, phases: { agent: 10 } });
    const current = await store.currentRollouts('run-1');
    expect(current.map((r) => r.id)).toEqual(['a2', 'b1']);
    expect(current[0]).toMatchObject({ status: 'finished', reward: 0.5, rewardDetails: { checks: 2 }, phases: { agent: 10 } });
    await store.setRunStatus('run-1', 'finished');
    expect((await store.getRun('run-1'))?.finishedAt).toBeGreaterThan(0);
    await store.addEvent('a2', 'phase', 'started');
    expect((await store.listEvents('a2'))[0]).toMatchObject({ kind: 'phase', message: 'started' });
    await store.close();
  });
});
