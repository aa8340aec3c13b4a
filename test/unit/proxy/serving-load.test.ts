import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ServingLoadMonitor } from '../../../src/proxy/control/serving-load.js';
import { startFixture, type Fixture } from './proxy-fixture.js';

const WINDOW_MS = 200;
/** Below this an episode is over (the monitor's own threshold). */
const RECOVERED = 0.7;

/** Keeps this thread (the proxy's serving thread: the fixture runs in-process) running for `ms`. */
function hold(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy on purpose
  }
}

/** Two windows' samples in a row that are (nearly) all running: the second covers only the second hold. */
async function saturate(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    hold(3 * WINDOW_MS);
    // the overdue window's sample runs here
    await sleep(5);
  }
}

interface Status {
  serving_thread: { busy: number | null; window_sec: number };
}

describe('how busy the serving thread is', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  const status = async (): Promise<Status> => (await fetch(`${fx.proxy.url}/control/status`)).json() as Promise<Status>;
  const warnings = () => fx.logger.lines.filter((line) => line.includes('serving thread'));

  it('reports it in /control/status and warns once per saturated spell, naming what to do', async () => {
    fx = await startFixture({ servingLoadWindowMs: WINDOW_MS, warnWhenServingThreadBusy: true });
    await sleep(5 * WINDOW_MS);
    const { busy: idle, window_sec: windowSec } = (await status()).serving_thread;
    expect(windowSec).toBe(0.2);
    expect(idle).not.toBeNull();
    expect(idle!).toBeLessThan(RECOVERED);
    expect(warnings()).toEqual([]);

    // saturated windows in a row: one warning
    await saturate();
    expect((await status()).serving_thread.busy).toBeGreaterThanOrEqual(0.9);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(
      /serving thread was \d+ % busy over the last 0\.2 s.*a core that no other busy process shares, or split the rollouts across several proxies/,
    );

    // it recovers, then saturates again: a second warning
    await sleep(5 * WINDOW_MS);
    expect((await status()).serving_thread.busy).toBeLessThan(RECOVERED);
    await saturate();
    expect(warnings()).toHaveLength(2);
  });

  it('refuses a window too short to mean anything, naming the default', () => {
    for (const windowMs of [0, -5, Number.NaN]) {
      expect(() => new ServingLoadMonitor(windowMs, undefined)).toThrow(/servingLoadWindowMs .*at least 10 ms \(the default is 10000\)/);
    }
  });
});
