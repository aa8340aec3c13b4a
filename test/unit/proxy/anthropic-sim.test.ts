import { afterAll, afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { renderCompletion } from '../../../src/sim/chat-template.js';
import { splitSolutionSteps } from '../../../src/sim/policies/solution-steps.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { parseCountTokensRequest, parseMessagesRequest } from '../../../src/proxy/protocols/anthropic/request-schema.js';
import { chatPrompt, chatRequest } from '../../../src/proxy/protocols/anthropic/to-chat.js';
import { estimatePromptTokens } from '../../../src/proxy/protocols/anthropic/token-estimate.js';
import { startProxy } from '../../../src/proxy/server.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import type { RecordedCall } from '../../../src/records/call.js';
import { INSTRUCTION, SOLVE_SH, makeTask, removeTaskDirs } from '../sim/fixtures.js';
import { MemoryLogger, MemorySink } from './proxy-fixture.js';

/** What Claude Code declares, trimmed: its Bash tool, a file tool, and a server tool the upstream cannot run. */
const CLAUDE_CODE_TOOLS: Anthropic.ToolUnion[] = [
  {
    name: 'Bash',
    description: 'Executes a given bash command in a persistent shell session.',
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command to execute' },
        description: { type: 'string', description: 'Clear, concise description of what this command does in 5-10 words' },
      },
      required: ['command', 'description'],
    },
  },
  {
    name: 'Read',
    description: 'Reads a file from the local filesystem.',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
  },
  { type: 'web_search_20250305', name: 'web_search' },
];

const SYSTEM: Anthropic.TextBlockParam[] = [
  { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
  { type: 'text', text: 'Answer tersely.', cache_control: { type: 'ephemeral' } },
];

const STEPS = splitSolutionSteps(SOLVE_SH);

afterAll(removeTaskDirs);

describe('Anthropic Messages against the built-in sim upstream', () => {
  let sim: SimServer;
  let proxy: RunningProxy;
  afterEach(async () => {
    await proxy.close();
    await sim.close();
  });

  async function start(): Promise<{ client: Anthropic; sink: MemorySink }> {
    const task = makeTask();
    sim = await startSimServer({ policy: { kind: 'oracle' }, tasks: [task] });
    const sink = new MemorySink();
    const session = { rolloutId: 'r-anthropic', runId: 'run', taskId: task.id, secret: 'anthropic-sim-secret' };
    proxy = await startProxy({
      upstreams: [{ url: sim.url, kind: 'vllm' }],
      sessions: { bySecret: (s) => (s === session.secret ? session : undefined) },
      sink,
      logger: new MemoryLogger(),
    });
    // the SDK appends /v1/messages to the base URL
    const client = new Anthropic({ baseURL: `${proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0 });
    return { client, sink };
  }

  /** The recorded call's request sent straight to the sim, translated the way the proxy translates it. */
  async function direct(call: RecordedCall): Promise<{ prompt_token_ids: number[]; choices: { token_ids: number[] }[] }> {
    const body = { ...chatRequest(parseMessagesRequest(call.request)), stream: false, return_token_ids: true, logprobs: true };
    const res = await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-openforge-task': 'hello-file' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { prompt_token_ids: number[]; choices: { token_ids: number[] }[] };
  }

  it('runs the oracle through Bash tool_use blocks, streamed and whole, and records the sim token ids', async () => {
    const { client, sink } = await start();
    const params = { model: 'claude-sonnet-4-5', max_tokens: 4096, system: SYSTEM, tools: CLAUDE_CODE_TOOLS };
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: INSTRUCTION }] }];

    const first = await client.messages.stream({ ...params, messages: conversation }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toHaveLength(1);
    const firstCall = first.content[0];
    if (firstCall?.type !== 'tool_use') throw new Error(`expected a tool_use block, got ${JSON.stringify(first.content)}`);
    expect(firstCall.name).toBe('Bash');
    expect(firstCall.id).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
    expect(firstCall.input).toEqual({ command: STEPS[0]?.command, description: 'Step 1/2 of the reference solution: write the greeting' });

    conversation.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: firstCall.id, content: '' }] },
    );
    const second = await client.messages.create({ ...params, messages: conversation });
    expect(second.stop_reason).toBe('tool_use');
    const secondCall = second.content[0];
    if (secondCall?.type !== 'tool_use') throw new Error(`expected a tool_use block, got ${JSON.stringify(second.content)}`);
    expect((secondCall.input as { command: string }).command).toBe(STEPS[1]?.command);
    expect(secondCall.id).not.toBe(firstCall.id);

    conversation.push(
      { role: 'assistant', content: second.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: secondCall.id, content: [{ type: 'text', text: 'ok' }] }] },
    );
    const stream = client.messages.stream({ ...params, messages: conversation });
    const streamedText: string[] = [];
    stream.on('text', (delta) => streamedText.push(delta));
    const last = await stream.finalMessage();
    expect(last.stop_reason).toBe('end_turn');
    expect(last.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Done: ran the 2 step\(s\)/) }]);
    expect(streamedText.length).toBeGreaterThan(1);

    const calls = await sink.waitFor(3);
    expect(calls.map((c) => [c.protocol, c.label, c.stream, c.status, c.error, c.missingTokenIds])).toEqual([
      ['anthropic', 'policy', true, 200, null, false],
      ['anthropic', 'policy', false, 200, null, false],
      ['anthropic', 'policy', true, 200, null, false],
    ]);
    for (const call of calls) {
      const sim = await direct(call);
      expect(call.promptTokenIds && Array.from(call.promptTokenIds)).toEqual(sim.prompt_token_ids);
      expect(call.completionTokenIds).toEqual(sim.choices[0]?.token_ids);
      expect(call.logprobs).toHaveLength(call.completionTokenIds?.length ?? -1);
    }
    // what the SDK parsed is exactly what the recorded tokens say the model generated
    expect(calls[0]?.completionTokenIds).toEqual(
      renderCompletion({ content: null, toolCalls: [{ name: 'Bash', arguments: JSON.stringify(firstCall.input) }] }),
    );
    // prefix property across the translation: each prompt extends the previous prompt plus its completion
    for (const [previous, next] of [
      [calls[0], calls[1]],
      [calls[1], calls[2]],
    ] as const) {
      const before = [...(previous?.promptTokenIds ?? []), ...(previous?.completionTokenIds ?? [])];
      expect(before.length).toBeGreaterThan(0);
      expect(Array.from(next?.promptTokenIds ?? []).slice(0, before.length)).toEqual(before);
    }
    // the record keeps what the harness received, in its own protocol
    expect(calls[0]?.response).toMatchObject({ type: 'message', stop_reason: 'tool_use', content: [{ type: 'tool_use', input: firstCall.input }] });
    expect(calls[1]?.response).toEqual(second);
  });

  it("counts tokens exactly with the upstream's /tokenize: what the same message then costs, recorded as count_tokens", async () => {
    const { client, sink } = await start();
    const request = {
      model: 'claude-sonnet-4-5',
      system: SYSTEM,
      tools: CLAUDE_CODE_TOOLS,
      messages: [{ role: 'user' as const, content: INSTRUCTION }],
    };
    const counted = await client.messages.countTokens(request);
    expect(counted).toMatchObject({ openforge_token_count: 'exact' });
    // not the estimate the proxy falls back to: the prompt the sim renders for the message itself
    const answered = await client.messages.create({ ...request, max_tokens: 200 });
    expect(counted.input_tokens).toBe(answered.usage.input_tokens);
    expect(counted.input_tokens).not.toBe(estimatePromptTokens(chatPrompt(parseCountTokensRequest(request))));

    const [call] = await sink.waitFor(1);
    expect(call).toMatchObject({
      label: 'count_tokens',
      protocol: 'anthropic',
      status: 200,
      error: null,
      promptTokenIds: null,
      completionTokenIds: null,
      missingTokenIds: false,
      response: { input_tokens: counted.input_tokens },
    });
  });
});
