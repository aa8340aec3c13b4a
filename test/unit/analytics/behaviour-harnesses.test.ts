import { describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { protocolRecords } from '../../../src/proxy/protocols/registry.js';
import { rolloutBehaviour } from '../../../src/analytics/behaviour/rollout-behaviour.js';
import { rolloutTools } from '../../../src/analytics/behaviour/tool-steps.js';
import { toolFailed } from '../../../src/analytics/behaviour/tool-failure.js';
import { harnessCalls, PROBE_TASK, RECORDED_HARNESSES } from '../../helpers/harness-calls.js';

/**
 * The behaviour metrics on real recorded episodes of every real harness (test/fixtures/harness-calls): the
 * probe task's reference solution, run by the sim oracle through each harness's own shell tool, fails once
 * (`cat` of a missing report), writes the report, reads it back (the same command, now succeeding) and
 * repeats that read. Each harness reports the failure in its own words and protocol shape.
 */
const EXPECTED: Record<string, { protocol: string; shell: string; offered: number }> = {
  'forge-agent': { protocol: 'chat', shell: 'bash', offered: 3 },
  'claude-code': { protocol: 'anthropic', shell: 'Bash', offered: 12 },
  codex: { protocol: 'responses', shell: 'exec_command', offered: 12 },
  'qwen-code': { protocol: 'chat', shell: 'run_shell_command', offered: 14 },
  openclaw: { protocol: 'chat', shell: 'exec', offered: 12 },
  opencode: { protocol: 'chat', shell: 'bash', offered: 10 },
};

const planSteps = (loadTask(PROBE_TASK).config.metadata as { steps: string[] }).steps;

describe.each(RECORDED_HARNESSES)('behaviour of a recorded %s episode', (harness) => {
  const fixture = harnessCalls(harness);
  const expected = EXPECTED[harness]!;
  const behaviour = rolloutBehaviour({
    id: `${harness}.probe`,
    taskId: fixture.task,
    harness,
    reward: fixture.reward,
    rewardDetails: fixture.rewardDetails,
    phases: fixture.phases,
    calls: fixture.calls,
    planSteps,
  });

  it("reads its tool calls and their results from its own protocol's records", () => {
    expect(new Set(fixture.calls.filter((c) => c.label === 'policy').map((c) => c.protocol))).toEqual(new Set([expected.protocol]));
    const { steps, offered } = rolloutTools(fixture.calls);
    expect(offered).toHaveLength(expected.offered);
    expect(offered).toContain(expected.shell);
    expect(steps.map((s) => s.call.name)).toEqual(Array(4).fill(expected.shell));
    // every call's result came back in a later request, the first one a failure and the rest not
    expect(steps.map((s) => s.result !== undefined)).toEqual([true, true, true, true]);
    expect(steps.map((s) => toolFailed(s.result!))).toEqual([true, false, false, false]);
    expect(steps[2]!.result!.output).toContain('status: ok');
  });

  it('finds the check after the last write, the recovered error and the repeated call', () => {
    expect(behaviour).toMatchObject({
      turns: 5,
      toolCalls: 4,
      selfVerified: true,
      toolErrors: 1,
      recovered: 1,
      repeatedErrors: 0,
      abandoned: 0,
      errorRecovery: 1,
      repeatedCalls: 1,
      toolsUsed: { [expected.shell]: 4 },
      toolsOffered: expected.offered,
      planSteps: 2,
      planStepsReached: 2,
      planCompletion: 1,
    });
    expect(behaviour.toolCoverage).toBeCloseTo(1 / expected.offered);
  });

  it('counts tokens and time per turn from its policy calls', () => {
    const policy = fixture.calls.filter((c) => c.label === 'policy');
    expect(behaviour.promptTokens).toBe(policy.reduce((sum, c) => sum + c.promptTokens!, 0));
    expect(behaviour.completionTokens).toBe(policy.reduce((sum, c) => sum + c.completionTokens!, 0));
    expect(behaviour.msPerTurn).toBeCloseTo(fixture.phases.agent! / 5);
  });

  it("reads the same token counts from each answer's usage as from its recorded token ids", () => {
    for (const c of fixture.calls) expect(protocolRecords(c.protocol).usage(c.response)).toEqual({ prompt: c.promptTokens, completion: c.completionTokens });
  });
});
