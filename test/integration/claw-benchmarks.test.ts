import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { pinchbenchImporter, qwenclawbenchImporter } from '../../src/importers/claw-md/index.js';
import { executeRun } from '../../src/rollout/run.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, judgeCalls, rewardDetails, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

/**
 * Real PinchBench and QwenClawBench task files imported and run under sim:oracle with the run's judge
 * `sim:judge`: their own grade() on the workspace and on the transcript rebuilt from the ATIF trajectory, the
 * rubric through the judge endpoint of the verifier phase, combined by each benchmark's rule.
 */
const SOLUTIONS = path.resolve('test/fixtures/claw-md-solutions');
const PINCH = ['task_00_sanity', 'task_03_blog', 'task_08_memory', 'task_09_files', 'task_14_humanizer'];
const QWEN = [
  'task_00008_heartbeat_joke_scheduler_with_conditional_dispatch',
  'task_00035_delete_installed_skill_directory_with_verification',
  'task_00036_find_largest_file_in_downloads_directory',
  'task_00067_write_sparql_query_for_product_reviews_containing_iphone',
  'task_00096_create_protected_secrets_directory_with_access_rules',
];
const JUDGE = { upstream: 'sim:judge' };
const runs: Record<string, HarnessRolloutRecord[]> = {};
let pinchDir = '';
let qwenDir = '';

beforeAll(async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'of-claw-'));
  pinchDir = path.join(out, 'pinchbench');
  qwenDir = path.join(out, 'qwenclawbench');
  await pinchbenchImporter.import(path.resolve('test/fixtures/pinchbench'), pinchDir);
  await qwenclawbenchImporter.import(path.resolve('test/fixtures/qwenclawbench'), qwenDir);
  for (const [dir, ids] of [
    [pinchDir, PINCH],
    [qwenDir, QWEN],
  ] as const) {
    // solve.sh, and answer.md where the reference solution has a final answer for the transcript checks
    for (const id of ids) cpSync(path.join(SOLUTIONS, id), path.join(dir, id, 'solution'), { recursive: true });
  }
  await harnessLayer('codex');
  for (const harness of ['forge-agent', 'codex']) {
    runs[`pinch ${harness}`] = (
      await runHarness(
        harness,
        PINCH.map((t) => path.join(pinchDir, t)),
        { judge: JUDGE },
      )
    ).rollouts;
  }
  runs['qwen forge-agent'] = (
    await runHarness(
      'forge-agent',
      QWEN.map((t) => path.join(qwenDir, t)),
      { judge: JUDGE },
    )
  ).rollouts;
}, 1_800_000);

describe.each(['forge-agent', 'codex'])('PinchBench tasks under sim:oracle with %s and judge sim:judge', (harness) => {
  it('scores each by its own checks and the judge, as PinchBench does', () => {
    const byTask = Object.fromEntries(runs[`pinch ${harness}`]!.map((r) => [r.taskId, r]));
    expect(Object.keys(byTask).sort()).toEqual(PINCH);
    for (const id of ['task_00_sanity', 'task_09_files']) {
      expect(byTask[id]!.reward, explain(byTask[id]!)).toBe(1);
      expect(rewardDetails(byTask[id]!).grading_type).toBe('automated');
      expect(judgeCalls(byTask[id]!)).toEqual([]);
    }
    // its check wants OpenClaw's read_file tool with params.files; this harness read notes.md with its shell
    expect(rewardDetails(byTask.task_08_memory!)).toMatchObject({ reward: 0.8, automated_checks: { read_notes: 0, correct_date: 1, no_hallucination: 1 } });
    for (const id of ['task_03_blog', 'task_14_humanizer']) {
      const r = byTask[id]!;
      expect(r.reward, explain(r)).toBe(1);
      expect(rewardDetails(r)).toMatchObject({ grading_type: 'llm_judge', judge: 1 });
      const calls = judgeCalls(r);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ upstream: 'sim:judge', status: 200, request: { model: 'judge' } });
      expect(calls[0]!.request.messages[0]!.content).toContain('## Rubric');
      // judge calls are not policy calls: none of them is in the store
      expect(r.calls.every((c) => c.model === 'policy')).toBe(true);
    }
  });
});

describe('QwenClawBench tasks under sim:oracle with forge-agent and judge sim:judge', () => {
  it("scores the reference solutions by grade() and the judge, combined by QwenClawBench's rule", () => {
    const rollouts = runs['qwen forge-agent']!;
    expect(rollouts.map((r) => r.taskId).sort()).toEqual(QWEN);
    const byTask = Object.fromEntries(rollouts.map((r) => [r.taskId, r]));
    for (const r of rollouts) {
      expect(r.errorType, explain(r)).toBeNull();
      const d = rewardDetails(r);
      const weights = JSON.parse(readFileSync(path.join(qwenDir, r.taskId, 'tests', 'grading.json'), 'utf8')).weights;
      if (d.grading_type === 'automated') {
        expect(r.reward).toBeCloseTo(d.automated, 5);
        continue;
      }
      expect(judgeCalls(r)).toHaveLength(1);
      const counted = d.automated < 0.75 ? 0 : d.judge;
      expect(r.reward).toBeCloseTo((d.automated * weights.automated + counted * weights.llm_judge) / (weights.automated + weights.llm_judge), 5);
    }
    for (const id of QWEN.filter((t) => !t.startsWith('task_00036'))) {
      expect(byTask[id]!.reward, explain(byTask[id]!)).toBe(1);
      expect(Object.values(rewardDetails(byTask[id]!).automated_checks).every((v) => v === 1)).toBe(true);
    }
    // its check on the agent's inspection commands reads Anthropic-style tool_use blocks, which OpenClaw's
    // transcript (toolCall) never has: under QwenClawBench's own runner that check is 0 as well
    const largest = rewardDetails(byTask.task_00036_find_largest_file_in_downloads_directory!);
    expect(largest.automated_checks).toMatchObject({ inspected_downloads_with_tools: 0, identified_largest_text_file: 1, reported_exact_size: 1 });
    expect(byTask.task_00036_find_largest_file_in_downloads_directory!.reward).toBeCloseTo(5 / 6, 5);
  });
});

describe("the judge's API key", () => {
  const KEY = `judge-key-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const seen: { authorization?: string; model?: string }[] = [];
  let fakeJudge: http.Server;
  let runId = '';
  let containerId = '';

  beforeAll(async () => {
    // a fake OpenAI-compatible judge upstream on the host (no external API here), answering full marks
    fakeJudge = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ authorization: req.headers.authorization, model: (JSON.parse(body) as { model?: string }).model });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [{ index: 0, message: { role: 'assistant', content: '{"scores": {"all": 1}, "total": 1, "notes": "fake"}' }, finish_reason: 'stop' }],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => fakeJudge.listen(0, '127.0.0.1', () => resolve()));
    process.env.OF_TEST_JUDGE_KEY = KEY;
    const output = mkdtempSync(path.join(os.tmpdir(), 'of-judge-key-'));
    const loaded = resolveRunConfig(
      {
        tasks: [path.join(pinchDir, 'task_03_blog')],
        harness: 'forge-agent',
        model: { upstream: 'sim:oracle' },
        judge: { upstream: `http://127.0.0.1:${(fakeJudge.address() as AddressInfo).port}/v1`, model: 'judge-large', api_key_env: 'OF_TEST_JUDGE_KEY' },
        output,
      },
      path.join(output, 'run.yaml'),
    );
    const summary = await executeRun(loaded, { keepContainersSec: 300 });
    runId = summary.runId;
    expect(summary.tasks[0]!.rewards).toEqual([1]);
    const [kept] = await new Docker().listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } });
    containerId = kept!.Id;
  }, 600_000);

  afterAll(async () => {
    delete process.env.OF_TEST_JUDGE_KEY;
    fakeJudge?.close();
    if (runId) await new DockerBackend().removeRun(runId);
  });

  it('reaches the judge upstream from the orchestrator and is nowhere in the container: not its environment, not its files', async () => {
    expect(seen).toEqual([{ authorization: `Bearer ${KEY}`, model: 'judge-large' }]);
    const container = new Docker().getContainer(containerId);
    const inspect = await container.inspect();
    expect(JSON.stringify(inspect.Config.Env)).not.toContain(KEY);
    const exec = await container.exec({
      Cmd: [
        'sh',
        '-c',
        `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -- "$0"; grep -rlsF --exclude-dir=proc --exclude-dir=sys -- "$0" / | wc -l`,
        KEY,
      ],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({});
    const out = await new Promise<string>((resolve) => {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('latin1')));
      stream.on('end', () => resolve(text));
    });
    // two counts, each 0 (the search's own command line is under /proc, which it skips)
    expect(
      out
        .replace(/[^\d\n]/g, '')
        .trim()
        .split('\n')
        .slice(-2),
    ).toEqual(['0', '0']);
  }, 300_000);
});
