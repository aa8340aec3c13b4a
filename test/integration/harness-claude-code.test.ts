import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const TASKS = ['create-config-file', 'sales-by-region'];
let rollouts: HarnessRolloutRecord[];

beforeAll(async () => {
  await harnessLayer('claude-code');
  ({ rollouts } = await runHarness('claude-code', TASKS));
}, 900_000);

describe('Claude Code (real @anthropic-ai/claude-code native binary) under sim:oracle', () => {
  it('solves the tasks through its own Bash tool', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(TASKS);
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      expect(toolNamesCalled(r.calls)).toContain('Bash');
    }
  });

  it('speaks streaming Anthropic Messages to the proxy; helper and count_tokens calls are labelled apart', () => {
    for (const r of rollouts) {
      const policy = r.calls.filter((c) => c.label === 'policy');
      expect(policy.length, explain(r)).toBe(2);
      expect(r.calls.map((c) => c.seq)).toEqual(r.calls.map((_, i) => i + 1));
      for (const c of policy) {
        expect(c).toMatchObject({ protocol: 'anthropic', stream: true, status: 200, model: 'policy', missingTokenIds: false });
        const tools = (c.request as { tools?: { name: string }[] }).tools ?? [];
        expect(tools.map((t) => t.name)).toContain('Bash');
      }
      // Whatever else Claude Code sends (titles, summaries on the small/fast alias; count_tokens) is never a policy turn.
      for (const c of r.calls.filter((c) => c.label !== 'policy')) {
        expect(['helper', 'count_tokens']).toContain(c.label);
        if (c.label === 'helper') expect(c.model).not.toBe('policy');
      }
    }
  });

  it('collects its session transcript', () => {
    for (const r of rollouts) {
      const sessions = r.transcripts.filter((f) => /^projects\/-workspace\/[0-9a-f-]+\.jsonl$/.test(f));
      expect(sessions, explain(r)).toHaveLength(1);
      const lines = readFileSync(path.join(r.artifacts, 'agent', 'transcript', sessions[0]!), 'utf8')
        .trim()
        .split('\n');
      expect(lines.some((l) => l.includes('"tool_use"') && l.includes('"Bash"'))).toBe(true);
      // The stream-json output is the harness's own log of the episode.
      const events = readFileSync(path.join(r.artifacts, 'agent', 'stdout.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; subtype?: string });
      expect(events.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    }
  });
});
