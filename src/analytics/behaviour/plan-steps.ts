import { existsSync } from 'node:fs';
import { loadTasks } from '../../config/task.js';

/**
 * The plan steps each task's task.toml lists (`[metadata] steps = ["…", …]`, names of the grader's
 * partial-credit checks), by task id. Task folders that are gone (a run read on another machine) or
 * do not load list none.
 */
export function listedPlanSteps(taskPaths: readonly string[]): Map<string, string[]> {
  const steps = new Map<string, string[]>();
  for (const target of taskPaths) {
    if (!existsSync(target)) continue;
    try {
      for (const task of loadTasks(target)) {
        const listed = (task.config.metadata as { steps?: unknown } | undefined)?.steps;
        if (Array.isArray(listed) && listed.every((s) => typeof s === 'string')) steps.set(task.id, listed);
      }
    } catch {
      // a suite that no longer loads: its tasks' plans come from the grader's checks alone
    }
  }
  return steps;
}
