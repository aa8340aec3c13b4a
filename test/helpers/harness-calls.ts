import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BehaviourCall } from '../../src/analytics/behaviour/behaviour-call.js';

/**
 * Recorded calls of real harnesses on the behaviour-probe task (test/fixtures/behaviour-probe), written by
 * scripts/fixtures/record-harness-calls.mjs: every call as the store returned it, long strings (system prompts,
 * tool descriptions) cut, token ids kept as counts.
 */
export const RECORDED_HARNESSES = ['forge-agent', 'claude-code', 'codex', 'qwen-code', 'openclaw', 'opencode'] as const;
export const PROBE_TASK = path.resolve('test/fixtures/behaviour-probe/write-and-check');

export interface HarnessCallsFixture {
  harness: string;
  task: string;
  reward: number;
  rewardDetails: unknown;
  errorType: string | null;
  phases: Record<string, number>;
  startedAt: number;
  events: { ts: number; kind: string; message: string }[];
  calls: (BehaviourCall & { model: string; stream: boolean; error: string | null })[];
}

export function harnessCalls(harness: string): HarnessCallsFixture {
  return JSON.parse(readFileSync(path.resolve('test/fixtures/harness-calls', `${harness}.json`), 'utf8')) as HarnessCallsFixture;
}
