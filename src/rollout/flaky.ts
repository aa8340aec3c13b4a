import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flakyTasks, type FlakyVerdict } from '../analytics/flaky-tasks.js';
import { STORE_FILE, Store } from '../store/store.js';
import type { RunEvents } from './run.js';
import { referenceRun, type ReferenceHarness } from './validate.js';

export interface FlakyCheckOptions extends RunEvents {
  /** Rollouts of each task per harness. */
  n: number;
  concurrency?: number;
  signal?: AbortSignal;
}

const HARNESSES: ReferenceHarness[] = ['oracle', 'nop'];

/**
 * Runs every task of a suite n times with the oracle and n times with an agent that does nothing, and flags
 * the tasks whose reward varies under those same answers (`flakyTasks`).
 */
export async function findFlakyTasks(target: string, opts: FlakyCheckOptions): Promise<FlakyVerdict[]> {
  const outputDir = mkdtempSync(path.join(os.tmpdir(), 'openforge-flaky-'));
  try {
    const runIds = [];
    for (const harness of HARNESSES) runIds.push((await referenceRun(target, harness, { ...opts, rolloutsPerTask: opts.n, outputDir })).runId);
    const store = await Store.open(path.join(outputDir, STORE_FILE));
    try {
      const runs = [];
      for (const [i, harness] of HARNESSES.entries()) runs.push({ harness, rollouts: await store.currentRollouts(runIds[i]!) });
      return flakyTasks(runs);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}
