import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqliteDb } from '../../src/store/sqlite.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, type HarnessRolloutRecord } from '../helpers/harness-run.js';

const TASKS = ['create-config-file', 'sales-by-region'];
const SESSION_DB = 'agents/main/agent/openclaw-agent.sqlite';
let rollouts: HarnessRolloutRecord[];

beforeAll(async () => {
  await harnessLayer('openclaw');
  ({ rollouts } = await runHarness('openclaw', TASKS));
}, 900_000);

describe('OpenClaw (real openclaw binary, openai-completions provider) under sim:oracle', () => {
  it('solves the tasks through its own exec tool', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(TASKS);
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      expect(toolNamesCalled(r.calls)).toContain('exec');
      const result = JSON.parse(readFileSync(path.join(r.artifacts, 'agent', 'stdout.txt'), 'utf8')) as {
        meta: { agentMeta: { provider: string; terminalReceipt: { successfulToolNames: string[] } } };
      };
      expect(result.meta.agentMeta.provider).toBe('openforge');
      expect(result.meta.agentMeta.terminalReceipt.successfulToolNames).toContain('exec');
    }
  });

  it('speaks streaming Chat Completions to the proxy, every call recorded in order and labelled', () => {
    for (const r of rollouts) {
      expect(r.calls.length, explain(r)).toBe(2);
      expect(r.calls.map((c) => c.seq)).toEqual([1, 2]);
      for (const c of r.calls) {
        expect(c).toMatchObject({ protocol: 'chat', stream: true, status: 200, model: 'policy', label: 'policy', missingTokenIds: false });
        const tools = (c.request as { tools?: { function: { name: string } }[] }).tools ?? [];
        expect(tools.map((t) => t.function.name)).toContain('exec');
      }
    }
  });

  it('collects its session store, whose transcript holds the exec call and its result', async () => {
    for (const r of rollouts) {
      expect(r.transcripts, explain(r)).toContain(SESSION_DB);
      const db = await SqliteDb.open(path.join(r.artifacts, 'agent', 'transcript', SESSION_DB));
      try {
        const events = await db.all<{ event_json: string }>('SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq', ['rollout']);
        const messages = events
          .map((e) => JSON.parse(e.event_json) as { type: string; message?: { role: string; toolName?: string } })
          .filter((e) => e.type === 'message');
        expect(messages.map((m) => m.message?.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
        expect(messages[2]!.message!.toolName).toBe('exec');
      } finally {
        await db.close();
      }
    }
  });
});
