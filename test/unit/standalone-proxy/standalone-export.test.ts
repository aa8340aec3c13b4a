import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { StandaloneProxy } from '../../../src/standalone-proxy/start.js';
import { lockFileOf } from '../../../src/store/store-lock.js';
import { Store } from '../../../src/store/store.js';
import { exportRun } from '../../../src/trajectory/export.js';
import { openRunFolder } from '../../../src/inspector/run-folder.js';
import { startInspector } from '../../../src/inspector/server.js';
import { UserError } from '../../../src/util/errors.js';
import { USER_MESSAGES, startTestStandaloneProxy } from '../proxy/proxy-fixture.js';

const TOOLS = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];

describe('what openforge proxy records is a run that openforge export reads', () => {
  let running: StandaloneProxy | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  const start = (dbFile: string) => startTestStandaloneProxy({ dbFile, open: true, adminToken: 'the-admin-token' });
  const control = async (proxy: StandaloneProxy, route: string, body: unknown, token = 'the-admin-token') => {
    const res = await fetch(`${proxy.proxy.url}/control/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const readJsonl = (file: string) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('stores a run and its rollouts, takes rewards from a grader, and exports the graded ones (all with --unrewarded)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-proxy-export-'));
    const dbFile = path.join(dir, 'calls.db');
    running = await start(dbFile);
    const proxy = running;

    // one rollout through a session created for a task, one through an open token naming its task in a header
    const created = await control(proxy, 'sessions', { rollout_id: 'graded-1', task_id: 'hello' });
    const graded = new OpenAI({ baseURL: created.body.base_url as string, apiKey: 'x', maxRetries: 0 });
    const first = await graded.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS });
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('the oracle answered without a tool call');
    await graded.chat.completions.create({
      model: 'policy',
      messages: [...USER_MESSAGES, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '' }],
      tools: TOOLS,
    });
    const open = new OpenAI({ baseURL: `${proxy.proxy.url}/v1`, apiKey: 'open-7', maxRetries: 0, defaultHeaders: { 'x-openforge-task': 'hello' } });
    await open.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS });
    // and one that names no task (the sim finds it in the instruction): a rollout of no task
    const untasked = new OpenAI({ baseURL: `${proxy.proxy.url}/v1`, apiKey: 'open-untasked', maxRetries: 0 });
    await untasked.chat.completions.create({
      model: 'policy',
      messages: [{ role: 'user', content: 'Task hello: write the word done into /workspace/done.txt.' }],
      tools: TOOLS,
    });

    // the grader's reward; unknown rollouts, bad rewards and callers without the admin token are refused
    expect(await control(proxy, 'rollouts/graded-1/reward', { reward: 1, details: { tests: 'passed' } })).toEqual({
      status: 200,
      body: { rollout_id: 'graded-1', reward: 1 },
    });
    const unknown = await control(proxy, 'rollouts/nobody/reward', { reward: 1 });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.body)).toMatch(/nobody is not one of this proxy's/);
    const bad = await control(proxy, 'rollouts/graded-1/reward', { reward: 'yes' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/reward: expected a number, got \\"yes\\"/);
    expect((await control(proxy, 'rollouts/graded-1/reward', { reward: 0 }, 'open-7')).status).toBe(403);

    // while the proxy serves, its store is held: export says so, and a second proxy cannot write into it
    expect(existsSync(lockFileOf(dbFile))).toBe(true);
    await expect(exportRun(dbFile, { format: 'verl' })).rejects.toThrow(/is still running .*--allow-running/s);
    await expect(start(dbFile)).rejects.toThrow(UserError);
    await expect(start(dbFile)).rejects.toThrow(/in use by another openforge process/);

    expect(await proxy.close()).toEqual({ rollouts: 3, calls: 4, graded: 1, earlierRuns: [] });
    running = undefined;
    expect(existsSync(lockFileOf(dbFile))).toBe(false);

    const store = await Store.open(dbFile);
    const run = await store.latestRun();
    const rollouts = await store.currentRollouts(run!.id);
    const gradedCalls = await store.listCalls('graded-1');
    await store.close();
    expect(run).toMatchObject({ id: proxy.runId, status: 'finished' });
    // the open token's rollout takes the task its client named
    expect(rollouts.map((r) => [r.id, r.taskId, r.sampleIndex, r.status, r.reward, r.rewardDetails, r.harness])).toEqual([
      ['open-untasked', '', 0, 'finished', null, null, 'external'],
      ['graded-1', 'hello', 0, 'finished', 1, { tests: 'passed' }, 'external'],
      ['open-7', 'hello', 1, 'finished', null, null, 'external'],
    ]);

    // the store file itself is a valid argument; rollouts without a reward are left out unless asked for
    const out = path.join(dir, 'train.jsonl');
    const report = await exportRun(dbFile, { format: 'verl', out });
    expect(report).toMatchObject({ runId: proxy.runId, rolloutsExported: 1, rows: 1, simulated: true, interrupted: false, skipped: { withoutReward: 2 } });
    const [row] = readJsonl(out);
    expect(row).toMatchObject({ rollout_id: 'graded-1', uid: 'hello', reward_score: 1, num_turns: 2, harness: 'external' });
    // the sample is the recorded tokens: the first prompt, then both completions with the tool result between
    const [one, two] = gradedCalls;
    expect(row!.prompt_ids).toEqual(Array.from(one!.promptTokenIds!));
    const responseIds = row!.response_ids as number[];
    expect(responseIds.slice(0, one!.completionTokenIds!.length)).toEqual(Array.from(one!.completionTokenIds!));
    expect(responseIds.slice(-two!.completionTokenIds!.length)).toEqual(Array.from(two!.completionTokenIds!));

    // the inspector reads the same file: the run, and a rollout with its calls
    const inspector = await startInspector({ folder: await openRunFolder(dbFile) });
    try {
      const rolloutView = (await (
        await fetch(`${inspector.origin}/api/rollouts/graded-1`, { headers: { authorization: `Bearer ${inspector.token}` } })
      ).json()) as { calls: unknown[]; rollout: { reward: number } };
      expect(rolloutView.rollout).toMatchObject({ reward: 1, taskId: 'hello' });
      expect(rolloutView.calls).toHaveLength(2);
    } finally {
      await inspector.close();
    }

    const all = await exportRun(dbFile, { format: 'verl', out, unrewarded: true });
    expect(all).toMatchObject({ rolloutsExported: 3, skipped: { withoutReward: 0 } });
    // a rollout of no task is a GRPO group of its own
    expect(readJsonl(out).map((r) => [r.rollout_id, r.uid, r.reward_score])).toEqual([
      ['open-untasked', 'open-untasked', null],
      ['graded-1', 'hello', 1],
      ['open-7', 'hello', null],
    ]);
  });
});
