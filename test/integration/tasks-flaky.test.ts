import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FlakyVerdict } from '../../src/analytics/flaky-tasks.js';
import { workspaceImage } from '../helpers/docker.js';

/**
 * `openforge tasks flaky` for real: a tiny suite of two claw-basic tasks and a planted task whose grader
 * draws its reward at random (test/fixtures/flaky-tasks/random-grader), each run three times by the oracle
 * and three times by an agent that does nothing.
 */
const CLI = path.resolve('bin/openforge.js');
let suite: string;

beforeAll(async () => {
  await workspaceImage();
  suite = mkdtempSync(path.join(os.tmpdir(), 'of-flaky-suite-'));
  cpSync(path.resolve('test/fixtures/flaky-tasks/random-grader'), path.join(suite, 'random-grader'), { recursive: true });
  for (const task of ['create-config-file', 'sales-by-region']) cpSync(path.resolve('envs/claw-basic', task), path.join(suite, task), { recursive: true });
}, 600_000);

describe('openforge tasks flaky', () => {
  it('flags the task whose grader is random, and neither claw-basic task', () => {
    const res = spawnSync(process.execPath, [CLI, 'tasks', 'flaky', suite, '-n', '3', '--json'], { encoding: 'utf8', timeout: 600_000 });
    expect(res.status, res.stderr).toBe(1); // a flaky task was found
    const verdicts = JSON.parse(res.stdout) as FlakyVerdict[];
    expect(verdicts.map((v) => [v.taskId, v.flaky, v.judged])).toEqual([
      ['create-config-file', false, true],
      ['random-grader', true, true],
      ['sales-by-region', false, true],
    ]);
    for (const id of ['create-config-file', 'sales-by-region'])
      expect(verdicts.find((v) => v.taskId === id)!.rewards).toEqual({ oracle: [1, 1, 1], nop: [0, 0, 0] });
    const random = verdicts.find((v) => v.taskId === 'random-grader')!;
    expect(random.notes.join('\n')).toMatch(/oracle: 3 different outcomes in 3 rollouts/);
    expect(random.notes.join('\n')).toMatch(/nop: 3 different outcomes in 3 rollouts/);
  }, 600_000);

  it('refuses a single run per task, naming the fix', () => {
    const res = spawnSync(process.execPath, [CLI, 'tasks', 'flaky', suite, '-n', '1'], { encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('-n 1 runs each task once per harness: nothing can vary');
    expect(res.stderr).toContain('pass -n 2 or more');
  });
});
