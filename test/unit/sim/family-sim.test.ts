/** The sim speaking a real family's wire (`sim:oracle@qwen3`, `@deepseek_v3`): vLLM's answers, whole and streamed, and its token endpoints. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFamily } from '../../../src/families/registry.js';
import type { ChatMessage as FamilyMessage, ToolSpec } from '../../../src/families/types.js';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import { startSimServer, type SimServer } from '../../../src/sim/server.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';
import { postJson, postStream } from './http-client.js';

const task = makeTask();
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: INSTRUCTION },
];
const asked = { messages, tools: [OPENAI_BASH], return_token_ids: true, logprobs: true };
const servers: Record<string, SimServer> = {};

beforeAll(async () => {
  servers.qwen3 = await startSimServer({ policy: { kind: 'oracle', family: 'qwen3' }, tasks: [task] });
  servers.deepseek_v3 = await startSimServer({ policy: { kind: 'oracle', family: 'deepseek_v3' }, tasks: [task] });
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  removeTaskDirs();
});

/** What a client assembles from a stream's deltas, and the ids its chunks carry. */
function assemble(events: any[]): { content: string; reasoning: string; calls: { name: string; arguments: string }[]; ids: number[] } {
  const out = { content: '', reasoning: '', calls: [] as { name: string; arguments: string }[], ids: [] as number[] };
  for (const event of events) {
    const choice = event?.choices?.[0];
    if (!choice) continue;
    out.ids.push(...(choice.token_ids ?? []));
    out.content += choice.delta?.content ?? '';
    out.reasoning += choice.delta?.reasoning_content ?? '';
    for (const call of choice.delta?.tool_calls ?? []) {
      const c = (out.calls[call.index] ??= { name: '', arguments: '' });
      c.name += call.function?.name ?? '';
      c.arguments += call.function?.arguments ?? '';
    }
  }
  return out;
}

describe.each(['qwen3', 'deepseek_v3'])('sim:oracle@%s', (name) => {
  const family = loadFamily(name);
  const url = () => servers[name]!.url;

  it("renders the prompt with the family's template and tokenizer, and answers as vLLM's parsers read the sampled text", async () => {
    const { status, body } = await postJson(`${url()}/chat/completions`, asked);
    expect(status).toBe(200);
    const prompt = family.renderPrompt(messages as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true });
    expect(body.prompt_token_ids).toEqual(family.encode(prompt));
    const choice = body.choices[0];
    const sampled = family.decode(choice.token_ids);
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.logprobs.content).toHaveLength(choice.token_ids.length);
    const parsed = family.parseCompletion(sampled, { toolsEnabled: true });
    expect(choice.message.tool_calls.map((c: any) => c.function)).toEqual(parsed.tool_calls);
    expect(JSON.parse(choice.message.tool_calls[0].function.arguments).command).toContain('hello');
    if (name === 'qwen3') {
      expect(sampled).toMatch(/^<think>\n.+\n<\/think>\n\n<tool_call>\n\{"name": "bash", "arguments": \{"command": /s);
      expect(sampled.endsWith('</tool_call><|im_end|>')).toBe(true);
      expect(choice.message.reasoning_content).toMatch(/^\n.+\n$/);
      expect(choice.message.content).toBe('\n\n');
    } else {
      expect(sampled).toMatch(
        /^<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>bash\n```json\n\{.*\}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>$/,
      );
      expect(choice.message.content).toBeNull();
    }
  });

  it('streams deltas that add up to the whole answer, and chunk ids that add up to its ids', async () => {
    const whole = (await postJson(`${url()}/chat/completions`, asked)).body.choices[0];
    const { events } = await postStream(`${url()}/chat/completions`, { ...asked, stream: true });
    expect(events.at(-1)).toBe('[DONE]');
    const streamed = assemble(events.slice(0, -1));
    expect(streamed.ids).toEqual(whole.token_ids);
    expect(streamed.calls).toEqual(whole.message.tool_calls.map((c: any) => c.function));
    expect(streamed.reasoning || null).toEqual(whole.message.reasoning_content);
    expect(streamed.content || null).toEqual(whole.message.content || null);
  });

  it('serves /tokenize, /detokenize and /v1/completions with a token-id prompt, whole and streamed', async () => {
    const root = url().replace(/\/v1$/, '');
    const tokenized = (await postJson(`${root}/tokenize`, { messages, tools: [OPENAI_BASH] })).body;
    const chat = (await postJson(`${url()}/chat/completions`, asked)).body;
    expect(tokenized.tokens).toEqual(chat.prompt_token_ids);
    expect((await postJson(`${root}/detokenize`, { tokens: tokenized.tokens })).body.prompt).toBe(
      family.renderPrompt(messages as FamilyMessage[], [OPENAI_BASH] as ToolSpec[], { addGenerationPrompt: true }),
    );

    const request = { prompt: tokenized.tokens, return_token_ids: true, logprobs: 0, openforge_chat: { messages, tools: [OPENAI_BASH] } };
    const whole = (await postJson(`${url()}/completions`, request)).body.choices[0];
    expect(whole.token_ids).toEqual(chat.choices[0].token_ids);
    expect(whole.prompt_token_ids).toEqual(tokenized.tokens);
    expect(whole.logprobs.token_logprobs).toHaveLength(whole.token_ids.length);
    const { events } = await postStream(`${url()}/completions`, { ...request, stream: true });
    const chunks = events.slice(0, -1).map((e: any) => e.choices[0]);
    expect(chunks.flatMap((c: any) => c.token_ids)).toEqual(whole.token_ids);
    expect(chunks.map((c: any) => c.text).join('')).toBe(family.decode(whole.token_ids));

    const bare = await postJson(`${url()}/completions`, { prompt: tokenized.tokens });
    expect(bare.status).toBe(400);
    expect(bare.body.error.message).toMatch(/openforge_chat/);
  });
});
