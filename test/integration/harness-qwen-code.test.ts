import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const TASKS = ['create-config-file', 'sales-by-region'];
let rollouts: HarnessRolloutRecord[];

beforeAll(async () => {
  await harnessLayer('qwen-code');
  ({ rollouts } = await runHarness('qwen-code', TASKS));
}, 900_000);

describe('Qwen Code (real @qwen-code/qwen-code binary) under sim:oracle', () => {
  it('solves the tasks through its own run_shell_command tool', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(TASKS);
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      expect(toolNamesCalled(r.calls)).toContain('run_shell_command');
    }
  });

  it('speaks streaming Chat Completions to the proxy, every call recorded in order and labelled', () => {
    for (const r of rollouts) {
      // One turn runs the solution, one answers that it is done; Qwen Code makes no helper calls headless.
      expect(r.calls.length, explain(r)).toBe(2);
      expect(r.calls.map((c) => c.seq)).toEqual([1, 2]);
      for (const c of r.calls) {
        expect(c).toMatchObject({ protocol: 'chat', stream: true, status: 200, model: 'policy', label: 'policy', missingTokenIds: false });
        const tools = (c.request as { tools?: { function: { name: string } }[] }).tools ?? [];
        expect(tools.map((t) => t.function.name)).toContain('run_shell_command');
      }
    }
  });

  it('collects its chat transcript', () => {
    for (const r of rollouts) {
      const chats = r.transcripts.filter((f) => /^projects\/-workspace\/chats\/[^/]+\.jsonl$/.test(f));
      expect(chats, explain(r)).toHaveLength(1);
      const lines = readFileSync(path.join(r.artifacts, 'agent', 'transcript', chats[0]!), 'utf8')
        .trim()
        .split('\n');
      expect(lines.some((l) => l.includes('run_shell_command'))).toBe(true);
      // The headless stream-json output is the harness's own log of the episode.
      expect(readFileSync(path.join(r.artifacts, 'agent', 'stdout.txt'), 'utf8')).toMatch(/"type":"result","subtype":"success"/);
    }
  });
});
