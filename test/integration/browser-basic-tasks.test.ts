import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTasks, type Task } from '../../src/config/task.js';
import type { TaskValidation } from '../../src/rollout/validate.js';

/**
 * Every browser-basic task validated through the CLI, as a user validates a suite: each task in its own
 * image, its reference solution (solution/solve.sh replaying solution/actions.json through the rollout's
 * env server, with the rollout's env token) must score 1 and nothing done must score 0, both graded by the
 * env server's POST /evaluate (tests/test.sh).
 */
const CLI = path.resolve('bin/openforge.js');
const SUITE = path.resolve(import.meta.dirname, '../../envs/browser-basic');
const tasks = loadTasks(SUITE);

function browserConfig(task: Task): { start_url: string } {
  const env = task.config.environment as { kind?: string; browser?: { start_url: string } };
  if (env.kind !== 'browser' || !env.browser?.start_url) throw new Error(`${task.id}: task.toml lacks [environment] kind = "browser" with a start_url`);
  return env.browser;
}

describe('the browser-basic suite', () => {
  it('has at least ten browser tasks, each linking to the shared site kit', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(10);
    for (const t of tasks) {
      expect(browserConfig(t).start_url).toMatch(/^http:\/\/127\.0\.0\.1:8000\//);
      expect(realpathSync(path.join(t.environmentDir!, 'site/kit'))).toBe(realpathSync(path.join(SUITE, '_site-kit/site')));
      expect(realpathSync(path.join(t.testsDir, 'test.sh'))).toBe(realpathSync(path.join(SUITE, '_site-kit/tests/test.sh')));
      expect(realpathSync(path.join(t.solutionDir!, 'solve.sh'))).toBe(realpathSync(path.join(SUITE, '_site-kit/solution/solve.sh')));
    }
  });

  it('validates: every task scores 1 with its reference actions and 0 with nothing done', () => {
    const res = spawnSync(process.execPath, [CLI, 'tasks', 'validate', SUITE, '-c', '2', '--json'], {
      encoding: 'utf8',
      timeout: 1_500_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const results = JSON.parse(res.stdout || '[]') as TaskValidation[];
    expect(results.map((r) => r.taskId).sort(), res.stderr).toEqual(tasks.map((t) => t.id).sort());
    for (const r of results) expect(r, `${r.taskId}: ${r.problem}`).toMatchObject({ ok: true, oracleReward: 1, nopReward: 0 });
    expect(res.status, res.stderr).toBe(0);
  }, 1_500_000);
});
