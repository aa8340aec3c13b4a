import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeClock, Settler } from '../../../src/in-container/desktop-env/settle.js';

const policy = { quietMs: 40, firstDamageMs: 120, capMs: 2000 };

/** Settles on the fake clock, calling `at[ms]` callbacks as the time passes; returns when it settled. */
async function settleWith(settler: Settler, events: Array<[number, () => void]>, p = policy): Promise<number> {
  const mark = settler.mark();
  for (const [ms, fire] of events) setTimeout(fire, ms);
  const done = settler.settle(mark, p);
  await vi.runAllTimersAsync();
  return done;
}

describe('Settler: settled when the screen and the accessibility tree are both quiet, capped', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('returns after firstDamageMs when nothing changed', async () => {
    const damage = new ChangeClock();
    const a11y = new ChangeClock();
    expect(await settleWith(new Settler([damage, a11y]), [])).toBe(120);
  });

  it('waits for the screen to stay undamaged for quietMs after its last change', async () => {
    const damage = new ChangeClock();
    const a11y = new ChangeClock();
    const took = await settleWith(new Settler([damage, a11y]), [
      [10, () => damage.changed()],
      [30, () => damage.changed()],
    ]);
    expect(took).toBe(70);
  });

  it('waits for the accessibility tree too when it changes after the screen went quiet', async () => {
    const damage = new ChangeClock();
    const a11y = new ChangeClock();
    const settler = new Settler([damage, a11y]);
    const took = await settleWith(settler, [
      [10, () => damage.changed()],
      [45, () => a11y.changed()],
      [80, () => a11y.changed()],
    ]);
    expect(took).toBe(120);
    // on the screen alone the same action would have counted as settled at 50 ms
    const screenOnly = new ChangeClock();
    expect(await settleWith(new Settler([screenOnly]), [[10, () => screenOnly.changed()]])).toBe(50);
  });

  it('counts a change of the tree alone as a change', async () => {
    const damage = new ChangeClock();
    const a11y = new ChangeClock();
    expect(await settleWith(new Settler([damage, a11y]), [[5, () => a11y.changed()]])).toBe(45);
  });

  it('never takes longer than capMs however busy the sources are', async () => {
    const damage = new ChangeClock();
    const a11y = new ChangeClock();
    const busy: Array<[number, () => void]> = Array.from({ length: 200 }, (_, i) => [i * 20, () => (i % 2 ? damage : a11y).changed()]);
    expect(await settleWith(new Settler([damage, a11y]), busy, { ...policy, capMs: 500 })).toBe(500);
  });

  it('ignores changes from before the mark', async () => {
    const damage = new ChangeClock();
    const a11y = new ChangeClock();
    a11y.changed();
    expect(await settleWith(new Settler([damage, a11y]), [])).toBe(120);
  });
});
