import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workspaceImage } from '../helpers/docker.js';
import { harnessLayer } from '../helpers/harness.js';

/**
 * Retry budgets of refused model calls (429 + Retry-After, 5 s from the service): forge-agent gives up after 4
 * retries over 15 s; Codex after 5 retries, at most 25 s if it waits each Retry-After out (its own backoff,
 * 0.2 s doubling, ends sooner). The loop's held weight update lasts twice that.
 */
const RETRY_BUDGET_SEC = { 'forge-agent': 15, codex: 25 } as const;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface LoopReport {
  harness: string;
  restarted: boolean;
  stale: number;
  steps: {
    step: number;
    tokens: number;
    segments: number;
    stale: number;
    stale_segments: number;
    restarts: number;
    versions: string[];
    batch_samples: number;
    held_sec?: number;
  }[];
}

/** integrations/verl/tests/training_loop.py: 5 steps of groups of 4 on claw-basic, a held update and a SIGKILLed service. */
function trainingLoop(harness: keyof typeof RETRY_BUDGET_SEC): LoopReport {
  const output = mkdtempSync(path.join(tmpdir(), `openforge-loop-${harness}-`));
  dirs.push(output);
  const args = ['integrations/verl/tests/training_loop.py', '--output', output, '--harness', harness, '--hold-sec', String(2 * RETRY_BUDGET_SEC[harness])];
  const res = spawnSync('python3', args, { encoding: 'utf8', timeout: 420_000 });
  expect(res.status, `${res.stdout}\n${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout.trim().split('\n').at(-1)!) as LoopReport;
}

function expectWholeLoop(report: LoopReport): void {
  expect(report.steps).toHaveLength(5);
  expect(report.restarted).toBe(true);
  // the held update split the rollouts it caught mid-episode in two versions: stale under max_staleness 0, counted
  const held = report.steps.find((s) => s.held_sec !== undefined)!;
  expect(held.stale).toBeGreaterThan(0);
  expect(held.versions).toHaveLength(2);
  expect(report.stale).toBe(held.stale);
  expect(report.steps.reduce((n, s) => n + s.restarts, 0)).toBeGreaterThan(0);
  for (const step of report.steps) {
    expect(step.tokens).toBeGreaterThan(0);
    expect(step.batch_samples).toBe(step.segments - step.stale_segments);
  }
  // each step's weights are new: the versions go up, one per update
  expect(report.steps.map((s) => s.versions.at(-1))).toEqual(['1', '3', '4', '5', '6']);
}

describe('a trainer drives openforge serve for 5 steps (Python, standard library, integrations/verl/tests/training_loop.py)', () => {
  it('with forge-agent: every sampled token once, one version per sample, nothing lost across a SIGKILL, stale counted', async () => {
    await workspaceImage();
    const report = trainingLoop('forge-agent');
    expect(report.harness).toBe('forge-agent');
    expectWholeLoop(report);
  }, 450_000);

  it('with Codex (real binary) through a held update of twice its retry budget, 0 harness failures', async () => {
    await harnessLayer('codex');
    const report = trainingLoop('codex');
    expect(report.harness).toBe('codex');
    expectWholeLoop(report);
  }, 450_000);
});
