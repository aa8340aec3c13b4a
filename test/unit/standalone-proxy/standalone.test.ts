import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { StandaloneProxy } from '../../../src/standalone-proxy/start.js';
import { Store } from '../../../src/store/store.js';
import { UserError } from '../../../src/util/errors.js';
import { makeSuite } from '../../helpers/tasks.js';
import { USER_MESSAGES, startTestStandaloneProxy } from '../proxy/proxy-fixture.js';

/** The sim finds the task from its instruction when the session names none (open tokens). */
const TASK_MESSAGES = [{ role: 'user' as const, content: 'Task hello: write the word done into /workspace/done.txt.' }];
const TOOLS = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];

interface CreatedSession {
  secret: string;
  rollout_id: string;
  task_id: string | null;
  base_url: string;
}

describe('standalone proxy (openforge proxy)', () => {
  let running: StandaloneProxy | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  const dbFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'of-proxy-')), 'calls.db');
  const start = startTestStandaloneProxy;
  const createSession = async (proxy: StandaloneProxy, body: Record<string, unknown> = {}, token = proxy.adminToken) => {
    const res = await fetch(`${proxy.proxy.url}/control/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as CreatedSession };
  };

  it('creates sessions through the control API that work at once, and records their calls in the store', async () => {
    const file = dbFile();
    running = await start({ dbFile: file, policyModels: ['policy'] });
    const created = await createSession(running, { task_id: 'hello', rollout_id: 'my-rollout' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ rollout_id: 'my-rollout', task_id: 'hello' });
    expect(created.body.base_url).toBe(`${running.proxy.url}/s/${created.body.secret}/v1`);

    const client = new OpenAI({ baseURL: created.body.base_url, apiKey: 'unused', maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS });
    // the sim's oracle found the task through the session's task id and runs its solution
    expect(answer.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'bash' } });
    expect(JSON.stringify(answer.choices[0]?.message.tool_calls)).toContain('done.txt');
    await client.chat.completions.create({ model: 'small-fast', messages: USER_MESSAGES, tools: TOOLS });

    const unauthorised = await createSession(running, {}, 'not-the-admin-token');
    expect(unauthorised.status).toBe(401);
    expect((await createSession(running, { rollout_id: 'my-rollout' })).status).toBe(409);
    expect((await createSession(running, { rollout_id: 'has spaces' })).status).toBe(400);

    await running.close();
    running = undefined;
    const store = await Store.open(file);
    const calls = await store.listCalls('my-rollout');
    await store.close();
    expect(calls.map((c) => [c.seq, c.label, c.status, c.missingTokenIds])).toEqual([
      [1, 'policy', 200, false],
      [2, 'helper', 200, false],
    ]);
    expect(calls[0]?.promptTokenIds?.length).toBe(answer.usage?.prompt_tokens);
    expect(calls[0]?.completionTokenIds?.length).toBe(answer.usage?.completion_tokens);
    expect(calls[0]?.logprobs).toHaveLength(calls[0]?.completionTokenIds?.length ?? -1);
    // what the harness was sent is what was stored, without the engine's fields
    const stored = calls[0]?.response as Record<string, unknown>;
    expect(stored).toEqual(JSON.parse(JSON.stringify(answer)));
    expect(JSON.stringify(stored)).not.toMatch(/token_ids|kv_transfer_params/);
  });

  it('refuses unknown tokens unless open, and in open mode uses the token as the rollout id', async () => {
    const closedFile = dbFile();
    running = await start({ dbFile: closedFile });
    const closed = new OpenAI({ baseURL: `${running.proxy.url}/v1`, apiKey: 'anything', maxRetries: 0 });
    await expect(closed.chat.completions.create({ model: 'policy', messages: TASK_MESSAGES })).rejects.toThrow(OpenAI.AuthenticationError);
    await running.close();

    const file = dbFile();
    running = await start({ dbFile: file, open: true, adminToken: 'the-admin-token' });
    const created = await createSession(running, { rollout_id: 'created-one' });
    const viaBearer = new OpenAI({ baseURL: `${running.proxy.url}/v1`, apiKey: 'quick-run-7', maxRetries: 0 });
    await viaBearer.chat.completions.create({ model: 'policy', messages: TASK_MESSAGES });
    const viaPath = new OpenAI({ baseURL: `${running.proxy.url}/s/quick-run-7/v1`, apiKey: 'x', maxRetries: 0 });
    await viaPath.chat.completions.create({ model: 'policy', messages: TASK_MESSAGES });
    // neither the admin token nor a created session's rollout id can be used as an open token
    for (const token of ['the-admin-token', 'created-one']) {
      const client = new OpenAI({ baseURL: `${running.proxy.url}/v1`, apiKey: token, maxRetries: 0 });
      await expect(client.chat.completions.create({ model: 'policy', messages: TASK_MESSAGES })).rejects.toThrow(OpenAI.AuthenticationError);
    }
    const own = new OpenAI({ baseURL: created.body.base_url, apiKey: 'x', maxRetries: 0 });
    await own.chat.completions.create({ model: 'policy', messages: TASK_MESSAGES });
    await running.close();
    running = undefined;

    const store = await Store.open(file);
    const quick = await store.listCalls('quick-run-7');
    const createdCalls = await store.listCalls('created-one');
    const adminCalls = await store.listCalls('the-admin-token');
    await store.close();
    expect(quick.map((c) => c.seq)).toEqual([1, 2]);
    expect(createdCalls.map((c) => c.seq)).toEqual([1]);
    expect(adminCalls).toEqual([]);
  });

  it("lets a client name its task in x-openforge-task when its session names none, never over a session's own", async () => {
    running = await start({ dbFile: dbFile(), open: true, tasksDir: makeSuite([{ id: 'hello' }, { id: 'other' }]) });
    const url = `${running.proxy.url}/v1`;
    // no task in the session nor in the messages: the sim's error names the header to send
    const unnamed = new OpenAI({ baseURL: url, apiKey: 'open-1', maxRetries: 0 });
    await expect(unnamed.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS })).rejects.toThrow(/x-openforge-task/);
    // through the proxy, the header reaches the sim: its oracle runs the named task's solution
    const named = new OpenAI({ baseURL: url, apiKey: 'open-1', maxRetries: 0, defaultHeaders: { 'x-openforge-task': 'hello' } });
    const answer = await named.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS });
    expect(JSON.stringify(answer.choices[0]?.message.tool_calls)).toContain('done.txt');
    const unknown = new OpenAI({ baseURL: url, apiKey: 'open-1', maxRetries: 0, defaultHeaders: { 'x-openforge-task': 'no-such-task' } });
    await expect(unknown.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS })).rejects.toThrow(/no-such-task/);
    // a session created for a task keeps it whatever its client names
    const created = await createSession(running, { task_id: 'hello' });
    const own = new OpenAI({ baseURL: created.body.base_url, apiKey: 'x', maxRetries: 0, defaultHeaders: { 'x-openforge-task': 'no-such-task' } });
    const ownAnswer = await own.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: TOOLS });
    expect(JSON.stringify(ownAnswer.choices[0]?.message.tool_calls)).toContain('done.txt');
  });

  it("continues a rollout's numbering when a restarted proxy reopens the same store", async () => {
    const file = dbFile();
    const summaries = [];
    const runIds = [];
    for (let round = 0; round < 2; round++) {
      running = await start({ dbFile: file, open: true });
      runIds.push(running.runId);
      const client = new OpenAI({ baseURL: `${running.proxy.url}/v1`, apiKey: 'same-token', maxRetries: 0 });
      // concurrent first calls: numbering must still be arrival order without gaps or repeats
      await Promise.all([1, 2, 3].map(() => client.chat.completions.create({ model: 'policy', messages: TASK_MESSAGES })));
      if (round === 1)
        await new OpenAI({ baseURL: `${running.proxy.url}/v1`, apiKey: 'new-token', maxRetries: 0 }).chat.completions.create({
          model: 'policy',
          messages: TASK_MESSAGES,
        });
      summaries.push(await running.close());
      running = undefined;
    }
    const store = await Store.open(file);
    const calls = await store.listCalls('same-token');
    await store.close();
    expect(calls.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    // the continued rollout stays in its first run, and the second run says where its calls went
    expect(summaries[0]).toMatchObject({ rollouts: 1, calls: 3, earlierRuns: [] });
    expect(summaries[1]).toMatchObject({ rollouts: 1, calls: 1, earlierRuns: [{ runId: runIds[0], rollouts: 1 }] });
  });

  it('names a bad upstream or missing tasks as a user error, and leaves nothing running', async () => {
    const file = dbFile();
    await expect(start({ dbFile: file, upstreams: ['localhost:8000'] })).rejects.toThrow(UserError);
    await expect(start({ dbFile: file, upstreams: ['ftp://host/v1'] })).rejects.toThrow(/only http and https/);
    await expect(start({ dbFile: file, upstreams: ['http://user:hunter2@host/v1'] })).rejects.toThrow(/credentials/);
    await expect(start({ dbFile: file, upstreams: ['http://user:hunter2@host/v1'] })).rejects.not.toThrow(/hunter2/);
    await expect(start({ dbFile: file, tasksDir: undefined })).rejects.toThrow(/--tasks is required for sim:oracle/);
    await expect(start({ dbFile: file, upstreams: ['sim:replay:r1'] })).rejects.toThrow(/not served by openforge proxy/);
    await expect(start({ dbFile: file, upstreams: [] })).rejects.toThrow(/at least one --upstream/);
  });
});
