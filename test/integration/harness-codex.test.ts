import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const TASKS = ['create-config-file', 'sales-by-region'];
let rollouts: HarnessRolloutRecord[];

beforeAll(async () => {
  await harnessLayer('codex');
  ({ rollouts } = await runHarness('codex', TASKS));
}, 900_000);

describe('Codex CLI (real @openai/codex native binary) under sim:oracle', () => {
  it('solves the tasks through its own exec_command tool', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(TASKS);
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      expect(toolNamesCalled(r.calls)).toContain('exec_command');
    }
  });

  it('speaks streaming Responses to the proxy, every call recorded in order and labelled', () => {
    for (const r of rollouts) {
      expect(r.calls.length, explain(r)).toBe(2);
      expect(r.calls.map((c) => c.seq)).toEqual([1, 2]);
      for (const c of r.calls) {
        expect(c).toMatchObject({ protocol: 'responses', stream: true, status: 200, model: 'policy', label: 'policy', missingTokenIds: false });
        const tools = (c.request as { tools?: { name?: string }[] }).tools ?? [];
        expect(tools.map((t) => t.name)).toContain('exec_command');
      }
    }
  });

  it('collects its rollout transcript', () => {
    for (const r of rollouts) {
      const sessions = r.transcripts.filter((f) => /^sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-[^/]+\.jsonl$/.test(f));
      expect(sessions, explain(r)).toHaveLength(1);
      const lines = readFileSync(path.join(r.artifacts, 'agent', 'transcript', sessions[0]!), 'utf8')
        .trim()
        .split('\n');
      expect(lines.some((l) => l.includes('"function_call"') && l.includes('exec_command'))).toBe(true);
      // The `codex exec --json` event stream is the harness's own log of the episode.
      expect(readFileSync(path.join(r.artifacts, 'agent', 'stdout.txt'), 'utf8')).toMatch(/"type":"turn.completed"/);
    }
  });
});
