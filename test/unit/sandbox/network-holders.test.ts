import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { NetworkHolders } from '../../../src/sandbox/docker/network-holders.js';
import type { SandboxSpec } from '../../../src/sandbox/types.js';

/**
 * A scripted engine (a fake: the real one cannot be made to fail a start on demand). Each start takes the
 * next scripted outcome; it records the containers made and removed.
 */
function scriptedEngine(starts: ('ok' | { statusCode: number; message: string })[]) {
  const made: string[] = [];
  const removed: string[] = [];
  const engine = {
    async createContainer() {
      const id = `holder-${made.length + 1}`;
      made.push(id);
      return {
        id,
        async start() {
          const next = starts.shift() ?? 'ok';
          if (next !== 'ok') throw Object.assign(new Error(next.message), { statusCode: next.statusCode });
        },
        async inspect() {
          return { NetworkSettings: { Networks: { 'run-net': { IPAddress: '10.9.0.2' } } } };
        },
        async remove() {
          removed.push(id);
        },
      };
    },
  };
  return { docker: engine as unknown as Docker, made, removed };
}

const spec = { runId: 'r', image: 'openforge/task-t0:abc' } as SandboxSpec;
const initDied = { statusCode: 500, message: '(HTTP code 500) server error - cannot start a stopped process' };

describe('a network holder whose start the engine fails', () => {
  it('is made again once when the engine failed on its side (500), and the first container is removed', async () => {
    const engine = scriptedEngine([initDied, 'ok']);
    const holder = await new NetworkHolders(engine.docker, 'owner').borrow('run-net', spec, []);
    expect(holder).toMatchObject({ id: 'holder-2', network: 'run-net', address: '10.9.0.2' });
    expect(engine.removed).toEqual(['holder-1']);
  });

  it('fails the borrower as infrastructure, naming the holder, its image and network, after a second 500', async () => {
    const engine = scriptedEngine([initDied, initDied, 'ok']);
    const borrowed = new NetworkHolders(engine.docker, 'owner').borrow('run-net', spec, []);
    await expect(borrowed).rejects.toMatchObject({
      type: 'infrastructure',
      message:
        'cannot start a network holder (`sleep` from openforge/task-t0:abc) on network run-net: (HTTP code 500) server error - cannot start a stopped process',
    });
    expect(engine.made).toEqual(['holder-1', 'holder-2']);
    expect(engine.removed).toEqual(['holder-1', 'holder-2']);
  });

  it('is not tried again when the engine refused the request (4xx): that would fail the same way', async () => {
    const engine = scriptedEngine([{ statusCode: 400, message: 'exec: "sleep": executable file not found in $PATH' }, 'ok']);
    await expect(new NetworkHolders(engine.docker, 'owner').borrow('run-net', spec, [])).rejects.toThrow(/executable file not found/);
    expect(engine.made).toEqual(['holder-1']);
  });
});
