import { expect } from 'vitest';
import { openRunSource } from '../../../src/trajectory/run-source.js';
import { rolloutSamples } from '../../../src/trajectory/run-samples.js';
import type { TrajectorySample } from '../../../src/trajectory/types.js';
import type { RecordedRun } from './recorded-run.js';

/** Builds the samples of one rollout through the same path the exporters use (store → builder). */
export async function samplesOf(run: RecordedRun, rolloutId: string) {
  const source = await openRunSource(run.dir);
  try {
    const rollout = source.rollouts.find((r) => r.id === rolloutId);
    if (!rollout) throw new Error(`no rollout ${rolloutId}`);
    const result = await rolloutSamples(source, rollout);
    for (const s of result.samples) expectAligned(s);
    return result;
  } finally {
    await source.store.close();
  }
}

export function expectAligned(s: TrajectorySample): void {
  expect(s.response_mask).toHaveLength(s.response_ids.length);
  expect(s.response_logprobs).toHaveLength(s.response_ids.length);
  s.response_mask.forEach((m, i) => {
    if (m === 0) expect(s.response_logprobs[i]).toBe(0);
  });
}

/** Runs of equal mask value: [{mask, start, end}] over the response. */
export function maskSpans(mask: ArrayLike<number>): { mask: number; start: number; end: number }[] {
  const spans: { mask: number; start: number; end: number }[] = [];
  Array.from(mask).forEach((m, i) => {
    const last = spans[spans.length - 1];
    if (last && last.mask === m) last.end = i + 1;
    else spans.push({ mask: m, start: i, end: i + 1 });
  });
  return spans;
}
