import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCHMARK_PASS_THRESHOLD } from '../analytics/benchmark-metrics.js';
import { resolveRunConfig } from '../config/run.js';
import { benchmarkOf, loadTasks } from '../config/task.js';
import { executeRun, type RunEvents } from './run.js';
import type { RunSummary } from '../analytics/run-summary.js';

export interface TaskValidation {
  taskId: string;
  oracleReward: number | null;
  nopReward: number | null;
  ok: boolean;
  problem: string | null;
}

/**
 * Harbor-style task validation: the reference solution must score 1 and an agent that does nothing
 * must score 0, or the task (or its grader) is broken. A task of a benchmark with its own pass threshold
 * (BENCHMARK_PASS_THRESHOLD: Claw-Eval's 0.75) is held to that instead: the solution passes, doing nothing fails.
 */
export async function validateTasks(
  target: string,
  opts: { concurrency?: number; signal?: AbortSignal; judge?: ReferenceJudge } & RunEvents = {},
): Promise<TaskValidation[]> {
  const outputDir = mkdtempSync(path.join(os.tmpdir(), 'openforge-validate-'));
  try {
    const oracle = await referenceRun(target, 'oracle', { ...opts, rolloutsPerTask: 1, outputDir });
    const nop = await referenceRun(target, 'nop', { ...opts, rolloutsPerTask: 1, outputDir });
    const rewardOf = (s: RunSummary, id: string) => s.tasks.find((t) => t.taskId === id);
    const thresholds = new Map(
      loadTasks(target).flatMap((t) => {
        const threshold = BENCHMARK_PASS_THRESHOLD[benchmarkOf(t) ?? ''];
        return threshold === undefined ? [] : [[t.id, { threshold, benchmark: benchmarkOf(t)! }] as const];
      }),
    );
    return oracle.tasks.map((t) => {
      const o = rewardOf(oracle, t.taskId);
      const n = rewardOf(nop, t.taskId);
      const oracleReward = o?.rewards[0] ?? null;
      const nopReward = n?.rewards[0] ?? null;
      const problems: string[] = [];
      const pass = thresholds.get(t.taskId);
      if (pass) {
        if (oracleReward === null || oracleReward < pass.threshold)
          problems.push(`oracle scored ${oracleReward ?? 'nothing'}${errorText(o?.errors)} (must pass ${pass.benchmark}'s ${pass.threshold})`);
        if (nopReward === null || nopReward >= pass.threshold)
          problems.push(`doing nothing scored ${nopReward ?? 'nothing'}${errorText(n?.errors)} (must stay below ${pass.benchmark}'s ${pass.threshold})`);
      } else {
        if (oracleReward !== 1) problems.push(`oracle scored ${oracleReward ?? 'nothing'}${errorText(o?.errors)} (must be 1)`);
        if (nopReward !== 0) problems.push(`doing nothing scored ${nopReward ?? 'nothing'}${errorText(n?.errors)} (must be 0)`);
      }
      return { taskId: t.taskId, oracleReward, nopReward, ok: problems.length === 0, problem: problems.join('; ') || null };
    });
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

/** The harnesses whose answers never change: Harbor's oracle (the reference solution) and an agent that does nothing. */
export type ReferenceHarness = 'oracle' | 'nop';

/** The judge of judge-graded tasks (run.yaml `judge:`): `sim:judge`, or an upstream with its model and key variable. */
export interface ReferenceJudge {
  upstream: string;
  model?: string;
  api_key_env?: string;
}

export interface ReferenceRunOptions extends RunEvents {
  rolloutsPerTask: number;
  judge?: ReferenceJudge;
  outputDir: string;
  concurrency?: number;
  signal?: AbortSignal;
}

/** Every task of `target` run `rolloutsPerTask` times by a harness that needs no model, cut off from any network (but the judge's, when given). */
export function referenceRun(target: string, harness: ReferenceHarness, opts: ReferenceRunOptions): Promise<RunSummary> {
  return executeRun(
    resolveRunConfig(
      {
        tasks: path.resolve(target),
        harness,
        // the judge endpoint is served where the proxy is: a run with a judge is cut off from all else
        network: opts.judge ? 'proxy-only' : 'none',
        rollouts_per_task: opts.rolloutsPerTask,
        concurrency: opts.concurrency ?? 4,
        output: opts.outputDir,
        retries: { infrastructure: 1 },
        ...(opts.judge ? { judge: opts.judge } : {}),
      },
      path.join(process.cwd(), `reference-${harness}.yaml`),
    ),
    { ...opts, fresh: true },
  );
}

function errorText(errors: Record<string, number> | undefined): string {
  const keys = Object.keys(errors ?? {});
  return keys.length ? ` [${keys.join(', ')}]` : '';
}
