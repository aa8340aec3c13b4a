import { passAtK, passHatK } from '../run-summary.js';
import type { RunBehaviour } from '../behaviour/behaviour-summary.js';
import { groupBy, mean } from '../grouping.js';
import { BEHAVIOUR_METRICS, type MetricUnit } from '../behaviour/metrics.js';
import type { RolloutBehaviour } from '../behaviour/rollout-behaviour.js';
import { bootstrapInterval, DEFAULT_RESAMPLES, type Interval, type Stratum } from './bootstrap.js';

/** One quantity of two runs side by side: A, B, B − A and a bootstrap interval of B − A. */
export interface ComparedValue {
  key: string;
  label: string;
  unit: MetricUnit | 'reward';
  higherIsBetter?: boolean;
  a: number | null;
  b: number | null;
  diff: number | null;
  interval: Interval | null;
}

/** How a task went in a run: every rollout passed, none did, or some. */
export type TaskOutcome = 'pass' | 'fail' | 'mixed';

export interface RolloutLink {
  rolloutId: string;
  reward: number | null;
  /** Its page in the inspector. */
  url: string;
}

export interface TaskComparison {
  taskId: string;
  rollouts: { a: number; b: number };
  outcome: { a: TaskOutcome; b: TaskOutcome };
  values: ComparedValue[];
  links: { a: RolloutLink[]; b: RolloutLink[] };
}

export interface RunSide {
  runId: string;
  harness: string;
  upstream: string;
  simulated: boolean;
  rollouts: number;
}

export interface RunComparison {
  a: RunSide;
  b: RunSide;
  /** The k of pass@k and pass^k: the smaller of the two runs' rollouts per task. */
  k: number;
  bootstrap: { resamples: number; seed: number; level: number };
  /** Over the tasks both runs have. */
  overall: ComparedValue[];
  tasks: TaskComparison[];
  onlyIn: { a: string[]; b: string[] };
  /** Tasks whose outcome differs between the runs. */
  flipped: TaskComparison[];
}

export interface CompareOptions {
  seed?: number;
  resamples?: number;
  level?: number;
  /** The inspector's base URL for each run's rollout links (`#/rollout/<id>` is appended); relative links without one. */
  inspector?: { a?: string; b?: string };
}

/** What a comparison row measures on one rollout, and how its rollouts' values combine within a task and over tasks. */
interface Quantity {
  key: string;
  label: string;
  unit: MetricUnit | 'reward';
  higherIsBetter?: boolean;
  /** The rollout's value; a pass is judged by its own run's threshold. */
  of(r: RolloutBehaviour, passThreshold: number): number | null;
  /** The value of one task's rollout values (the mean, unless it is pass@k or pass^k); null without values. */
  perTask(values: readonly number[]): number | null;
}

/**
 * Reward, pass@1, pass@k, pass^k and every behaviour metric of two runs, per task and over the tasks they
 * share, with the difference B − A and its bootstrap interval (rollouts resampled within each task, seeded).
 */
export function compareRuns(a: RunBehaviour, b: RunBehaviour, options: CompareOptions = {}): RunComparison {
  const k = Math.max(1, Math.min(a.k, b.k));
  const seed = options.seed ?? 1;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? 0.95;
  const quantities = comparedQuantities(k);
  const [tasksA, tasksB] = [groupBy(a.rollouts, (r) => r.taskId), groupBy(b.rollouts, (r) => r.taskId)];
  const shared = [...tasksA.keys()].filter((t) => tasksB.has(t)).sort();
  const interval = (strata: Stratum[], stat: (a: readonly number[][], b: readonly number[][]) => number | null, stream: string) =>
    bootstrapInterval(strata, stat, { seed, resamples, level, stream });

  const compare = (q: Quantity, groups: { a: RolloutBehaviour[]; b: RolloutBehaviour[] }[], stream: string): ComparedValue => {
    const strata = groups.map((g) => ({ a: values(g.a, (r) => q.of(r, a.passThreshold)), b: values(g.b, (r) => q.of(r, b.passThreshold)) }));
    // the mean of the per-task values over the tasks where both runs have one: like is compared with like
    const sides = (va: readonly number[][], vb: readonly number[][]) => {
      const pairs = va.map((x, i) => [q.perTask(x), q.perTask(vb[i]!)]).filter((p): p is [number, number] => p[0] !== null && p[1] !== null);
      return pairs.length > 0 ? { a: mean(pairs.map((p) => p[0]))!, b: mean(pairs.map((p) => p[1]))! } : null;
    };
    const diff = (va: readonly number[][], vb: readonly number[][]) => {
      const both = sides(va, vb);
      return both && both.b - both.a;
    };
    const both = sides(
      strata.map((s) => [...s.a]),
      strata.map((s) => [...s.b]),
    );
    return {
      key: q.key,
      label: q.label,
      unit: q.unit,
      higherIsBetter: q.higherIsBetter,
      a: both?.a ?? null,
      b: both?.b ?? null,
      diff: both && both.b - both.a,
      interval: interval(strata, diff, `${stream}/${q.key}`),
    };
  };

  const tasks = shared.map((taskId): TaskComparison => {
    const group = { a: tasksA.get(taskId)!, b: tasksB.get(taskId)! };
    return {
      taskId,
      rollouts: { a: group.a.length, b: group.b.length },
      outcome: { a: outcomeOf(group.a, a.passThreshold), b: outcomeOf(group.b, b.passThreshold) },
      values: quantities.map((q) => compare(q, [group], `task/${taskId}`)),
      links: { a: links(group.a, options.inspector?.a), b: links(group.b, options.inspector?.b) },
    };
  });
  const sharedGroups = shared.map((t) => ({ a: tasksA.get(t)!, b: tasksB.get(t)! }));
  return {
    a: side(a),
    b: side(b),
    k,
    bootstrap: { resamples, seed, level },
    overall: quantities.map((q) => compare(q, sharedGroups, 'overall')),
    tasks,
    onlyIn: { a: [...tasksA.keys()].filter((t) => !tasksB.has(t)).sort(), b: [...tasksB.keys()].filter((t) => !tasksA.has(t)).sort() },
    flipped: tasks.filter((t) => t.outcome.a !== t.outcome.b),
  };
}

function comparedQuantities(k: number): Quantity[] {
  const passed = (r: RolloutBehaviour, passThreshold: number) => (r.reward !== null && r.reward >= passThreshold ? 1 : 0);
  const passStat = (estimator: typeof passAtK) => (v: readonly number[]) =>
    v.length === 0 ? null : estimator(v.length, v.filter((x) => x === 1).length, Math.min(k, v.length));
  return [
    { key: 'reward', label: 'reward', unit: 'reward', higherIsBetter: true, of: (r) => r.reward, perTask: mean },
    { key: 'passAt1', label: 'pass@1', unit: 'reward', higherIsBetter: true, of: passed, perTask: mean },
    ...(k > 1
      ? [
          { key: 'passAtK', label: `pass@${k}`, unit: 'reward' as const, higherIsBetter: true, of: passed, perTask: passStat(passAtK) },
          { key: 'passHatK', label: `pass^${k}`, unit: 'reward' as const, higherIsBetter: true, of: passed, perTask: passStat(passHatK) },
        ]
      : []),
    ...BEHAVIOUR_METRICS.map((m) => ({ ...m, of: (r: RolloutBehaviour) => m.of(r), perTask: mean })),
  ];
}

function values(rollouts: readonly RolloutBehaviour[], of: (r: RolloutBehaviour) => number | null): number[] {
  return rollouts.map(of).filter((v): v is number => v !== null);
}

function outcomeOf(rollouts: readonly RolloutBehaviour[], passThreshold: number): TaskOutcome {
  const passes = rollouts.filter((r) => r.reward !== null && r.reward >= passThreshold).length;
  return passes === rollouts.length ? 'pass' : passes === 0 ? 'fail' : 'mixed';
}

function links(rollouts: readonly RolloutBehaviour[], base: string | undefined): RolloutLink[] {
  return rollouts.map((r) => ({ rolloutId: r.rolloutId, reward: r.reward, url: rolloutUrl(r.rolloutId, base) }));
}

/** A rollout's page in the inspector: `#/rollout/<id>` on the inspector's base URL, or alone without one. */
export function rolloutUrl(rolloutId: string, base?: string): string {
  const hash = `#/rollout/${encodeURIComponent(rolloutId)}`;
  return base ? `${base.replace(/#.*$/, '').replace(/\/?$/, '/')}${hash}` : hash;
}

function side(run: RunBehaviour): RunSide {
  return { runId: run.runId, harness: run.harness, upstream: run.upstream, simulated: run.simulated, rollouts: run.rollouts.length };
}
