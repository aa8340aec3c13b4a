import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE, type RunEvents } from '../../src/rollout/run.js';
import type { RunSummary } from '../../src/analytics/run-summary.js';
import { protocolRecords } from '../../src/proxy/protocols/registry.js';
import { Store } from '../../src/store/store.js';
import type { RecordedCall } from '../../src/records/call.js';

export const CLAW_BASIC = path.resolve('envs/claw-basic');

export interface HarnessRolloutRecord {
  taskId: string;
  reward: number | null;
  errorType: string | null;
  errorMessage: string | null;
  calls: RecordedCall[];
  /** The rollout's artifacts folder (agent/, verifier/, result.json). */
  artifacts: string;
  /** Files collected from the harness's transcript paths, relative to agent/transcript. */
  transcripts: string[];
}

/**
 * One real run: claw-basic tasks under sim:oracle through a real harness, behind the proxy-only network
 * (`overrides`: other run.yaml keys, e.g. harness_env or max_turns).
 */
export async function runHarness(
  harness: string,
  taskIds: string[],
  overrides: Record<string, unknown> = {},
  events: RunEvents = {},
): Promise<{ summary: RunSummary; rollouts: HarnessRolloutRecord[]; output: string }> {
  const output = mkdtempSync(path.join(os.tmpdir(), `of-${harness}-`));
  const loaded = resolveRunConfig(
    {
      tasks: taskIds.map((t) => path.resolve(CLAW_BASIC, t)),
      harness,
      model: { upstream: 'sim:oracle', name: 'policy' },
      concurrency: 2,
      network: 'proxy-only',
      output,
      ...overrides,
    },
    path.join(output, 'run.yaml'),
  );
  const summary = await executeRun(loaded, { extraCaFile: process.env.OPENFORGE_EXTRA_CA, ...events });
  const store = await Store.open(path.join(output, STORE_FILE));
  try {
    const rollouts: HarnessRolloutRecord[] = [];
    for (const r of await store.currentRollouts(summary.runId)) {
      const artifacts = path.join(output, summary.runId, r.taskId, `${r.sampleIndex}-a${r.attempt}`);
      const transcriptDir = path.join(artifacts, 'agent', 'transcript');
      rollouts.push({
        taskId: r.taskId,
        reward: r.reward,
        errorType: r.errorType,
        errorMessage: r.errorMessage,
        calls: await store.listCalls(r.id),
        artifacts,
        transcripts: existsSync(transcriptDir) ? walk(transcriptDir).map((f) => path.relative(transcriptDir, f)) : [],
      });
    }
    return { summary, rollouts, output };
  } finally {
    await store.close();
  }
}

/**
 * Copies of claw-basic tasks with a longer agent timeout (the task folders, for runHarness): for harnesses
 * whose own start (OpenClaw, opencode: tens of seconds, minutes on a busy machine) says nothing about what
 * the test checks.
 */
export function withAgentTimeout(taskIds: string[], timeoutSec: number): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-tasks-'));
  return taskIds.map((id) => {
    const task = path.join(dir, id);
    cpSync(path.join(CLAW_BASIC, id), task, { recursive: true });
    const toml = readFileSync(path.join(task, 'task.toml'), 'utf8');
    const raised = toml.replace(/(\[agent\][^[]*?timeout_sec\s*=\s*)\d+/, `$1${timeoutSec}`);
    if (raised === toml) throw new Error(`${id}/task.toml has no [agent] timeout_sec to raise`);
    writeFileSync(path.join(task, 'task.toml'), raised);
    return task;
  });
}

/** What a failed rollout left behind, for an assertion message. */
export function explain(r: HarnessRolloutRecord): string {
  const read = (f: string) => (existsSync(path.join(r.artifacts, f)) ? readFileSync(path.join(r.artifacts, f), 'utf8').slice(-1500) : '(none)');
  const failed = r.calls.filter((c) => c.status !== 200).map((c) => `call ${c.seq} (${c.protocol}): ${c.status} ${c.error ?? ''}`);
  return `${r.taskId}: reward ${r.reward}, ${r.errorType ?? 'no error'} ${r.errorMessage ?? ''}\n${failed.join('\n')}\n--- agent stderr\n${read('agent/stderr.txt')}\n--- agent stdout\n${read('agent/stdout.txt')}`;
}

/** The tool calls the harness received, by tool name, read through each call's protocol records. */
export function toolNamesCalled(calls: RecordedCall[]): string[] {
  return calls.flatMap((c) =>
    protocolRecords(c.protocol)
      .answerView(c.response)
      .toolCalls.map((t) => t.name),
  );
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** What the rollout's grader wrote in reward.json: the reward and its parts. */
export function rewardDetails(r: HarnessRolloutRecord) {
  return JSON.parse(readFileSync(path.join(r.artifacts, 'verifier', 'reward.json'), 'utf8'));
}

export interface RecordedJudgeCall {
  upstream: string;
  status: number;
  request: { model: string; messages: { role: string; content: string }[] };
  response: { choices: { message: { content: string } }[] };
}

/** The judge calls the rollout's grader made (`judge/calls.jsonl`), none when it made none. */
export function judgeCalls(r: HarnessRolloutRecord): RecordedJudgeCall[] {
  const file = path.join(r.artifacts, 'judge', 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}
