import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openRunSource } from '../../src/trajectory/run-source.js';
import { rolloutSamples } from '../../src/trajectory/run-samples.js';
import type { TrajectorySample } from '../../src/trajectory/types.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

// Claude Code's own switch for SDK/mobile clients: after every tool round it asks its small/fast model for a
// one-line label of what the tools did (querySource "tool_use_summary_generation") and emits it on stdout as
// a `tool_use_summary` event. That model is the helper alias, so the call must be labelled helper and kept
// out of the policy's training samples.
const TASK = 'create-config-file';
let rollout: HarnessRolloutRecord;
let samples: TrajectorySample[];

beforeAll(async () => {
  await harnessLayer('claude-code');
  const run = await runHarness('claude-code', [TASK], { concurrency: 1, harness_env: { CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES: '1' } });
  rollout = run.rollouts[0]!;
  const source = await openRunSource(run.output);
  try {
    ({ samples } = await rolloutSamples(source, source.rollouts[0]!));
  } finally {
    await source.store.close();
  }
}, 900_000);

describe('a helper call made by a real harness (Claude Code tool-use summaries)', () => {
  it('solves the task, and Claude Code reports the summary its small model wrote', () => {
    expect(rollout.reward, explain(rollout)).toBe(1);
    const events = readFileSync(path.join(rollout.artifacts, 'agent', 'stdout.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; summary?: string });
    expect(events.filter((e) => e.type === 'tool_use_summary').map((e) => e.summary)).toHaveLength(1);
  });

  it('records the call on the small/fast alias, labelled helper, next to the two policy turns', () => {
    // The summary is generated while the next turn starts: its place among the seqs is not fixed.
    expect(rollout.calls.map((c) => c.seq)).toEqual([1, 2, 3]);
    const policy = rollout.calls.filter((c) => c.label === 'policy');
    const helpers = rollout.calls.filter((c) => c.label === 'helper');
    expect(
      policy.map((c) => c.model),
      explain(rollout),
    ).toEqual(['policy', 'policy']);
    expect(helpers.map((c) => [c.model, c.status])).toEqual([['policy-small', 200]]);
    // A tool-free side query about the tool round, not a turn of the agent.
    expect((helpers[0]!.request as { tools?: unknown[] }).tools ?? []).toEqual([]);
    expect(JSON.stringify(helpers[0]!.request)).toContain('Tools completed');
  });

  it('leaves the helper call out of the policy trajectory, which stays one merged sample', () => {
    expect(samples).toHaveLength(1);
    expect(samples[0]!.extra_fields.call_seqs).toEqual(rollout.calls.filter((c) => c.label === 'policy').map((c) => c.seq));
    expect(samples[0]!.break_reason).toBeNull();
    expect(samples[0]!.extra_fields.excluded_calls).toMatchObject({ helper: 1, failed: 0 });
  });
});
