import { createHash } from 'node:crypto';
import { seededRandom } from '../../util/seeded-random.js';

/** A confidence interval. */
export interface Interval {
  low: number;
  high: number;
}

export interface BootstrapOptions {
  /** Resamples drawn (default 2000). */
  resamples?: number;
  /** The generator's seed: the same seed gives the same interval. */
  seed: number;
  /** Coverage of the interval (default 0.95). */
  level?: number;
  /** Names what is resampled, so each statistic draws its own stream whatever order they are computed in. */
  stream: string;
}

/** One stratum (a task) of a paired comparison: its values in run A and in run B. */
export interface Stratum {
  a: readonly number[];
  b: readonly number[];
}

export const DEFAULT_RESAMPLES = 2000;

/**
 * Percentile bootstrap interval of `statistic` (a difference B − A, say) over strata resampled on their own:
 * each resample draws, in every stratum, as many values as it has with replacement from its A values and
 * from its B values, so a task never lends rollouts to another. Null when the statistic is undefined on
 * the data itself (a side without values).
 */
export function bootstrapInterval(
  strata: readonly Stratum[],
  statistic: (a: readonly number[][], b: readonly number[][]) => number | null,
  options: BootstrapOptions,
): Interval | null {
  if (
    statistic(
      strata.map((s) => [...s.a]),
      strata.map((s) => [...s.b]),
    ) === null
  )
    return null;
  const random = seededRandom(streamSeed(options.seed, options.stream));
  const draw = (values: readonly number[]) => Array.from(values, () => values[Math.floor(random() * values.length)]!);
  const estimates: number[] = [];
  for (let i = 0; i < (options.resamples ?? DEFAULT_RESAMPLES); i++) {
    const value = statistic(
      strata.map((s) => draw(s.a)),
      strata.map((s) => draw(s.b)),
    );
    if (value !== null) estimates.push(value);
  }
  if (estimates.length === 0) return null;
  estimates.sort((x, y) => x - y);
  const tail = (1 - (options.level ?? 0.95)) / 2;
  return { low: quantile(estimates, tail), high: quantile(estimates, 1 - tail) };
}

/** The q-quantile of sorted values, interpolated between neighbours. */
function quantile(sorted: readonly number[], q: number): number {
  const at = q * (sorted.length - 1);
  const below = Math.floor(at);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

function streamSeed(seed: number, stream: string): number {
  return createHash('sha256').update(`${seed}\0${stream}`).digest().readUInt32LE(0);
}
