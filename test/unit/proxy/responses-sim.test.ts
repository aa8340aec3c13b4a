import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseOutputItem, ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import type { Task } from '../../../src/config/task.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import type { Policy } from '../../../src/sim/policies/types.js';
import { responsesProtocol } from '../../../src/proxy/protocols/responses/protocol.js';
import type { PreparedCall } from '../../../src/proxy/protocols/types.js';
import { startProxy } from '../../../src/proxy/server.js';
import type { RunningProxy } from '../../../src/proxy/server.js';
import type { RecordedCall } from '../../../src/records/call.js';
import { makeTask, removeTaskDirs } from '../sim/fixtures.js';
import { MemoryLogger, MemorySink } from './proxy-fixture.js';

const SOLVE_SH = `#!/bin/bash
set -e
# step: write the greeting
echo hello > /workspace/hello.txt
# step: append the name
echo world >> /workspace/hello.txt
`;
const STEP_1 = '#!/bin/bash\nset -e\n# step: write the greeting\necho hello > /workspace/hello.txt';
const STEP_2 = '#!/bin/bash\nset -e\n# step: append the name\necho world >> /workspace/hello.txt';
const INSTRUCTION = 'Create /workspace/hello.txt with "hello" on the first line and "world" on the second.';

/** The tools Codex 0.171 declares, trimmed: its shell tool, two others, a namespace and a hosted tool. */
const CODEX_TOOLS = [
  {
    type: 'function',
    name: 'exec_command',
    description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        cmd: { type: 'string', description: 'Shell command to execute.' },
        workdir: { type: 'string', description: 'Working directory for the command. Defaults to the turn cwd.' },
        yield_time_ms: { type: 'number', description: 'Wait before yielding output.' },
      },
      required: ['cmd'],
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'write_stdin',
    description: 'Writes characters to an existing unified exec session and returns recent output.',
    strict: false,
    parameters: {
      type: 'object',
      properties: { session_id: { type: 'number' }, chars: { type: 'string' } },
      required: ['session_id'],
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'view_image',
    description: 'View a local image file from the filesystem.',
    strict: false,
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  },
  {
    type: 'namespace',
    name: 'multi_agent_v1',
    description: 'Tools for spawning and managing sub-agents.',
    tools: [
      {
        type: 'function',
        name: 'spawn_agent',
        description: 'Spawn a sub-agent.',
        strict: false,
        parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false },
      },
    ],
  },
  { type: 'web_search', external_web_access: true },
] as unknown as Tool[];

/** What Codex sends before the model's first turn: its prompt as developer messages, then the user's. */
const CODEX_PREAMBLE: ResponseInputItem[] = [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/workspace</cwd>\n</environment_context>' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: INSTRUCTION }] },
];

/** The request fields Codex sends with every turn. */
const CODEX_FIELDS = {
  model: 'policy',
  tools: CODEX_TOOLS,
  tool_choice: 'auto' as const,
  parallel_tool_calls: true,
  reasoning: { summary: 'auto' as const },
  store: false,
  include: ['reasoning.encrypted_content' as const],
  prompt_cache_key: 'thread-1',
};

interface Turn {
  output: ResponseOutputItem[];
  events: ResponseStreamEvent[];
}

/** Codex's loop: send the history, run every function call, append items and outputs, repeat until no call is made. */
async function codexLoop(client: OpenAI, stream: boolean, preamble: ResponseInputItem[], maxTurns = 5): Promise<Turn[]> {
  const turns: Turn[] = [];
  const input: ResponseInputItem[] = [...preamble];
  for (let i = 0; i < maxTurns; i++) {
    let turn: Turn;
    if (stream) {
      const events: ResponseStreamEvent[] = [];
      for await (const event of await client.responses.create({ ...CODEX_FIELDS, input, stream: true })) events.push(event);
      // Codex builds its items from output_item.done events only
      turn = { output: events.flatMap((e) => (e.type === 'response.output_item.done' ? [e.item] : [])), events };
    } else {
      turn = { output: (await client.responses.create({ ...CODEX_FIELDS, input })).output, events: [] };
    }
    turns.push(turn);
    input.push(...(turn.output as ResponseInputItem[]));
    const calls = turn.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    if (calls.length === 0) return turns;
    for (const call of calls) input.push({ type: 'function_call_output', call_id: call.call_id, output: `ran ${call.name}\nProcess exited with code 0\n` });
  }
  throw new Error(`no final answer after ${maxTurns} turns`);
}

function commandOf(item: ResponseOutputItem | undefined): string | undefined {
  return item?.type === 'function_call' ? (JSON.parse(item.arguments) as { cmd?: string }).cmd : undefined;
}

/** Each call's prompt starts with the previous call's prompt and completion: the multi-turn prefix property. */
function expectPrefixProperty(calls: RecordedCall[]): void {
  for (let k = 1; k < calls.length; k++) {
    const before = [...(calls[k - 1]?.promptTokenIds ?? []), ...(calls[k - 1]?.completionTokenIds ?? [])];
    expect(before.length).toBeGreaterThan(0);
    expect(Array.from(calls[k]?.promptTokenIds ?? []).slice(0, before.length)).toEqual(before);
  }
}

describe('Responses protocol against the built-in sim upstream', () => {
  let task: Task;
  let sim: SimServer;
  let proxy: RunningProxy;
  let sink: MemorySink;
  beforeAll(() => {
    task = makeTask({ name: 'codex-hello', instruction: INSTRUCTION, solve: SOLVE_SH });
  });
  afterAll(() => removeTaskDirs());
  afterEach(async () => {
    await proxy.close();
    await sim.close();
  });

  async function start(policy: Parameters<typeof startSimServer>[0]['policy'], taskId?: string): Promise<OpenAI> {
    sim = await startSimServer({ policy, tasks: [task] });
    sink = new MemorySink();
    const session = { rolloutId: 'r-codex', runId: 'run', taskId: taskId ?? '', secret: 'codex-secret' };
    proxy = await startProxy({
      upstreams: [{ url: sim.url, kind: 'vllm' }],
      sessions: { bySecret: (s) => (s === session.secret ? session : undefined) },
      sink,
      logger: new MemoryLogger(),
    });
    return new OpenAI({ baseURL: `${proxy.url}/s/${session.secret}/v1`, apiKey: 'x', maxRetries: 0 });
  }

  /** The ids the sim gives the Chat request the proxy made of a recorded Responses request, asked directly. */
  async function directIds(call: RecordedCall): Promise<{ prompt: number[]; completion: number[] }> {
    const { upstreamRequest } = (responsesProtocol.endpoints[0]!.prepare as (body: unknown) => PreparedCall)(call.request);
    const res = await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-openforge-task': task.id },
      body: JSON.stringify({ ...upstreamRequest, stream: false, return_token_ids: true }),
    });
    const body = (await res.json()) as { prompt_token_ids: number[]; choices: { token_ids: number[] }[] };
    return { prompt: body.prompt_token_ids, completion: body.choices[0]?.token_ids ?? [] };
  }

  for (const stream of [true, false]) {
    it(`runs the oracle's steps through exec_command and ends with its message (${stream ? 'streamed' : 'whole'})`, async () => {
      const client = await start({ kind: 'oracle' }, task.id);
      const turns = await codexLoop(client, stream, CODEX_PREAMBLE);

      expect(turns).toHaveLength(3);
      expect(turns[0]?.output).toEqual([
        {
          type: 'function_call',
          id: expect.stringMatching(/^fc_/),
          call_id: expect.any(String),
          name: 'exec_command',
          arguments: expect.any(String),
          status: 'completed',
        },
      ]);
      expect(commandOf(turns[0]?.output[0])).toBe(STEP_1);
      expect(commandOf(turns[1]?.output[0])).toBe(STEP_2);
      expect(turns[2]?.output).toMatchObject([
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Done: ran the 2 step(s) of the reference solution of task codex-hello.', annotations: [] }],
        },
      ]);
      if (stream) {
        for (const turn of turns) {
          const last = turn.events.at(-1);
          expect(last?.type).toBe('response.completed');
          expect(last?.type === 'response.completed' && last.response.output).toEqual(turn.output);
          expect(turn.events.filter((e) => e.type === 'response.completed')).toHaveLength(1);
        }
      }

      const calls = await sink.waitFor(3);
      for (const call of calls) {
        expect(call).toMatchObject({ protocol: 'responses', stream, status: 200, error: null, missingTokenIds: false });
        const direct = await directIds(call);
        expect(call.promptTokenIds && Array.from(call.promptTokenIds)).toEqual(direct.prompt);
        expect(call.completionTokenIds).toEqual(direct.completion);
        expect(call.logprobs).toHaveLength(direct.completion.length);
      }
      expectPrefixProperty(calls);
    });
  }

  it('streams reasoning as a reasoning item that, echoed back, keeps the prefix property', async () => {
    const thinkingPolicy: Policy = {
      name: 'thinking',
      respond: (request) =>
        request.messages.some((m) => m.role === 'tool')
          ? { reasoning: 'The file is written, so I am done.', content: 'All done.', toolCalls: [] }
          : {
              reasoning: 'I should write the file first.',
              content: 'Writing it now.',
              toolCalls: [{ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi > out.txt' }) }],
            },
    };
    const client = await start(thinkingPolicy);
    const turns = await codexLoop(client, true, CODEX_PREAMBLE);

    expect(turns.map((t) => t.output.map((item) => item.type))).toEqual([
      ['reasoning', 'message', 'function_call'],
      ['reasoning', 'message'],
    ]);
    expect(turns[0]?.output[0]).toMatchObject({
      type: 'reasoning',
      content: [{ type: 'reasoning_text', text: 'I should write the file first.' }],
      summary: [],
    });
    const reasoningDeltas = turns[0]?.events.flatMap((e) => (e.type === 'response.reasoning_text.delta' ? [e.delta] : [])) ?? [];
    expect(reasoningDeltas.length).toBeGreaterThan(1);
    expect(reasoningDeltas.join('')).toBe('I should write the file first.');
    expect(commandOf(turns[0]?.output[2])).toBe('echo hi > out.txt');

    const calls = await sink.waitFor(2);
    expect(calls.every((c) => c.missingTokenIds === false)).toBe(true);
    expectPrefixProperty(calls);
  });

  it('answers a call cut short by max_output_tokens as incomplete', async () => {
    const talker: Policy = { name: 'talker', respond: () => ({ content: 'A rather long answer that will not fit.', toolCalls: [] }) };
    const client = await start(talker);
    const whole = await client.responses.create({ model: 'policy', input: 'Talk.', max_output_tokens: 3 });
    expect(whole).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(whole.output_text.length).toBeGreaterThan(0);

    const events: ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'policy', input: 'Talk.', max_output_tokens: 3, stream: true })) {
      events.push(event);
    }
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.type === 'response.incomplete' && last.response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    const calls = await sink.waitFor(2);
    expect(calls.map((c) => [c.finishReason, c.completionTokenIds?.length])).toEqual([
      ['length', 3],
      ['length', 3],
    ]);
  });
});
