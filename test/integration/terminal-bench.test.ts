import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

/**
 * Real Terminal-Bench 2 tasks (test/fixtures/terminal-bench-2, byte for byte) run as they are. This machine has
 * no registry and no internet: their bases (python:3.13-slim-bookworm, ubuntu:24.04) and prebuilt docker_image
 * cannot be pulled, and their unmodified tests/test.sh fetches curl, uv and pytest at test time.
 */
const TB = path.resolve('test/fixtures/terminal-bench-2');
const TASKS = ['cancel-async-tasks', 'regex-log', 'sqlite-db-truncate'];

const runs: Record<string, { rollouts: HarnessRolloutRecord[]; log: string[] }> = {};

beforeAll(async () => {
  await harnessLayer('codex');
  for (const harness of ['forge-agent', 'codex']) {
    const log: string[] = [];
    const { rollouts } = await runHarness(
      harness,
      TASKS.map((t) => path.join(TB, t)),
      { timeouts: { verifier_sec: 120 } },
      { onLog: (line) => log.push(line) },
    );
    runs[harness] = { rollouts, log };
  }
}, 1_500_000);

const read = (r: HarnessRolloutRecord, f: string) => (existsSync(path.join(r.artifacts, f)) ? readFileSync(path.join(r.artifacts, f), 'utf8') : '');

describe.each(['forge-agent', 'codex'])('Terminal-Bench 2 tasks under sim:oracle with %s', (harness) => {
  it('tries docker_image, then builds the Dockerfile on the local Debian image, and says so in the output', () => {
    const { log } = runs[harness]!;
    for (const task of TASKS) {
      expect(log.join('\n')).toMatch(
        new RegExp(`task ${task}: docker_image alexgshaw/${task}:20251031 cannot be pulled \\(.+\\); building its environment/Dockerfile instead`),
      );
    }
    expect(log.join('\n')).toMatch(
      /task cancel-async-tasks: base image python:3\.13-slim-bookworm cannot be pulled \(.+\); built on the local Debian image openforge\/workspace:\w+ instead/,
    );
    expect(log.join('\n')).toMatch(/task regex-log: base image ubuntu:24\.04 cannot be pulled/);
  });

  it("runs the agent in the image's WORKDIR and the unmodified test.sh from /app, which fails only at its network step", () => {
    const { rollouts } = runs[harness]!;
    expect(rollouts.map((r) => r.taskId).sort()).toEqual([...TASKS].sort());
    for (const r of rollouts) {
      // the agent ran its whole reference solution (relative paths included) and exited cleanly
      expect(read(r, 'agent/stderr.txt') + read(r, 'agent/stdout.txt'), explain(r)).not.toMatch(/No such file or directory: 'run\.py'/);
      const stdout = read(r, 'verifier/test-stdout.txt') + read(r, 'verifier/test-stderr.txt');
      // test.sh refuses to run from / ; here it went past that check to pytest, which it could not fetch
      expect(stdout, explain(r)).not.toMatch(/No working directory set/);
      expect(stdout).toMatch(/Temporary failure resolving|Could not resolve host/);
      // not a reward of 0: the grader graded nothing, and the rollout says why
      expect(r.reward, explain(r)).toBeNull();
      expect(r.errorType, explain(r)).toBe('infrastructure');
      expect(r.errorMessage).toMatch(/the grader could not reach the network it needs/);
    }
  });
});
