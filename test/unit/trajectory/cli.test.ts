import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportCommand } from '../../../src/cli/commands/export.js';
import { statsCommand } from '../../../src/cli/commands/stats.js';
import { packageRoot } from '../../../src/util/paths.js';
import { BASH_TOOL, ChatHistory, finalAnswer, RecordedRun, toolCall } from './recorded-run.js';
import { captureStdout } from '../../helpers/stdout.js';

let run: RecordedRun | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await run?.close();
  run?.remove();
  run = undefined;
});

/** Two tasks, two rollouts each; task a passes once, task b twice. */
async function recordRun(): Promise<RecordedRun> {
  const r = await RecordedRun.create({ k: 2 });
  for (const [task, index, reward] of [
    ['a', 0, 1],
    ['a', 1, 0],
    ['b', 0, 1],
    ['b', 1, 1],
  ] as const) {
    const rollout = await r.rollout(task, index, reward);
    const chat = new ChatHistory('sys', `do ${task}`);
    await rollout.call(chat.snapshot(), toolCall('ls'), { tools: [BASH_TOOL] });
    chat.answer(toolCall('ls'), 1);
    chat.toolResult('x', 1);
    await rollout.call([{ role: 'user', content: 'title?' }], finalAnswer('t'), { label: 'helper' });
    await rollout.call(chat.snapshot(), finalAnswer('done'), { tools: [BASH_TOOL] });
  }
  return r;
}

const BIN = path.join(packageRoot(), 'bin', 'openforge.js');
const built = existsSync(path.join(packageRoot(), 'dist', 'cli', 'commands', 'export.js'));

describe('openforge export / stats commands', () => {
  it('export prints what it wrote, labelled as a simulation', async () => {
    run = await recordRun();
    const out = path.join(run.dir, 'train.jsonl');
    const stdout = captureStdout();
    await exportCommand().parseAsync([run.dir, '--format', 'verl', '--out', out, '--min-reward', '1'], { from: 'user' });
    expect(stdout()).toContain(`wrote 3 verl rows (jsonl) from 3 rollouts of run run-test to ${out}`);
    expect(stdout()).toContain('rollouts left out: 1 below --min-reward');
    expect(stdout()).toContain('SIMULATED');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('export leaves out stale rollouts and says so, --include-stale keeps them; stats counts them', async () => {
    run = await recordRun();
    await run.store.updateRollout('run-test.b.1.1', { staleness: 2, stale: true });
    const out = path.join(run.dir, 'fresh.jsonl');
    const stdout = captureStdout();
    await exportCommand().parseAsync([run.dir, '--format', 'verl', '--out', out], { from: 'user' });
    expect(stdout()).toContain('rollouts left out: 1 stale (--include-stale keeps them)');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
    await exportCommand().parseAsync([run.dir, '--format', 'verl', '--out', out, '--include-stale'], { from: 'user' });
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(4);

    vi.restoreAllMocks();
    const text = captureStdout();
    await statsCommand().parseAsync([run.dir], { from: 'user' });
    expect(text()).toContain('rollouts 4 (1 stale) · calls 12');
  });

  it('stats reports merge rate, exclusions, sample sizes and pass@k / pass^k', async () => {
    run = await recordRun();
    const stdout = captureStdout();
    await statsCommand().parseAsync([run.dir, '--json'], { from: 'user' });
    const stats = JSON.parse(stdout());
    expect(stats).toMatchObject({ rollouts: 4, calls: 12, policyCalls: 8, mergedCalls: 4, mergeRate: 0.5, samples: 4, k: 2 });
    expect(stats.excluded).toMatchObject({ helper: 4, missing_token_ids: 0 });
    expect(stats.tasks).toEqual([
      expect.objectContaining({ taskId: 'a', n: 2, rewards: { '1': 1, '0': 1 }, passAt1: 0.5, passAtK: 1, passHatK: 0 }),
      expect.objectContaining({ taskId: 'b', n: 2, rewards: { '1': 2 }, passAt1: 1, passAtK: 1, passHatK: 1 }),
    ]);
    expect(stats.tokensPerSample.max).toBeGreaterThanOrEqual(stats.tokensPerSample.p50);

    vi.restoreAllMocks();
    const text = captureStdout();
    await statsCommand().parseAsync([run.dir], { from: 'user' });
    expect(text()).toMatch(/merge rate 50\.0% \(4 of 8 policy calls/);
    expect(text()).toContain('calls excluded: helper 4');
    expect(text()).toMatch(/a: n 2 · rewards 0×1 1×1 · mean 0\.50 · pass@1 0\.50 · pass@2 1\.00 · pass\^2 0\.00/);
  });

  it.skipIf(!built)('the built CLI exits 2 with a one-line message for bad input', async () => {
    run = await recordRun();
    const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
    const badFormat = cli('export', run.dir, '--format', 'csv');
    expect(badFormat.status).toBe(2);
    expect(badFormat.stderr).toBe('openforge: unknown export format "csv"\n  hint: use one of: verl, sft\n');
    const missing = cli('export', path.join(run.dir, 'gone'), '--format', 'verl');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(`openforge: run folder ${path.join(run.dir, 'gone')} does not exist\n`);
    const badReward = cli('export', run.dir, '--format', 'sft', '--min-reward', 'high');
    expect(badReward.status).not.toBe(0);
    expect(badReward.stderr).toContain('expected a number, got "high"');
    const ok = cli('stats', run.dir);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('merge rate 50.0%');
  });
});
