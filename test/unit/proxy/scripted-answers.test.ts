import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEYOND_SCRIPT_UPSTREAM, SCRIPTED_UPSTREAM } from '../../../src/proxy/calls/scripted-answers.js';
import { type ScriptedAnswer } from '../../../src/proxy/session.js';
import type { ProxySession } from '../../../src/proxy/session.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({ policyModels: ['policy'] });
});

afterAll(async () => {
  await fx.close();
});

const TOKENS = { promptTokenIds: [1, 2, 3], completionTokenIds: [7, 8], logprobs: [-0.5, -0.25], finishReason: 'tool_calls', missingTokenIds: false };
const SHELL = [{ type: 'function' as const, function: { name: 'shell', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];

/** A recorded tool call (with the ids it was recorded with), then an edited final answer (no ids). */
function scripted(seen: unknown[] = []): ScriptedAnswer[] {
  return [
    {
      message: { content: 'Listing.', tool_calls: [{ id: 'call_rec1', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } }] },
      tokensFor: (body) => {
        seen.push(body);
        return TOKENS;
      },
    },
    { message: { content: 'The edited answer.' }, tokensFor: () => null },
  ];
}

function withScript(script: ScriptedAnswer[]): ProxySession {
  const session = fx.session();
  session.script = script;
  return session;
}

describe('a session with scripted answers (a fork)', () => {
  it('gets its first policy calls answered by the proxy, whole or streamed, then every later call from the upstream', async () => {
    const seen: unknown[] = [];
    const session = withScript(scripted(seen));
    const client = fx.client(session);
    const before = fx.fake.requests.length;

    const first = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, tools: SHELL });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(first.choices[0]!.message.tool_calls).toEqual([{ id: 'call_rec1', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } }]);
    expect(first.choices[0]!.message.content).toBe('Listing.');
    expect(seen).toEqual([{ model: 'policy', messages: USER_MESSAGES, tools: SHELL }]);

    await client.chat.completions.create({ model: 'policy-small', messages: USER_MESSAGES }); // a helper: not scripted, not counted
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true }))
      streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe('The edited answer.');

    const third = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(third.choices[0]!.message.content).not.toBe('The edited answer.');
    expect(fx.fake.requests.length - before).toBe(2); // the helper and the third policy call

    const calls = (await fx.sink.waitFor(fx.sink.calls.length)).filter((c) => c.rolloutId === session.rolloutId);
    expect(calls.map((c) => [c.seq, c.label, c.upstream === SCRIPTED_UPSTREAM, c.status, c.error])).toEqual([
      [1, 'policy', true, 200, null],
      [2, 'helper', false, 200, null],
      [3, 'policy', true, 200, null],
      [4, 'policy', false, 200, null],
    ]);
    // the recorded answer keeps the ids it was recorded with; the edited one has none, so it never trains as model tokens
    expect(calls[0]).toMatchObject({ promptTokenIds: [1, 2, 3], completionTokenIds: [7, 8], logprobs: [-0.5, -0.25], missingTokenIds: false });
    expect(calls[2]).toMatchObject({ promptTokenIds: null, completionTokenIds: null, logprobs: null, missingTokenIds: true, finishReason: 'stop' });
    expect(calls[3]!.completionTokenIds).not.toBeNull();
  });

  it('speaks Responses to a Codex-style client: the scripted tool call arrives as a function_call item', async () => {
    const client = fx.client(withScript(scripted()));
    const tools = [{ type: 'function' as const, name: 'shell', parameters: { type: 'object', properties: { command: { type: 'string' } } }, strict: false }];
    const stream = await client.responses.create({ model: 'policy', input: 'list the files', tools, stream: true });
    let final: { status?: string; output?: unknown[] } | undefined;
    for await (const event of stream) if (event.type === 'response.completed') final = event.response;
    expect(final?.status).toBe('completed');
    expect(final?.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ type: 'output_text', text: 'Listing.' })] }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_rec1', name: 'shell', arguments: '{"command":"ls"}' }),
    ]);
    const whole = await client.responses.create({ model: 'policy', input: 'and now?' });
    expect(whole.output_text).toBe('The edited answer.');
  });

  it('speaks Anthropic Messages to a Claude Code-style client: the scripted tool call arrives as a tool_use block', async () => {
    const session = withScript(scripted());
    const anthropic = new Anthropic({ baseURL: `${fx.proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0 });
    const tools = [{ name: 'shell', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }];
    const first = await anthropic.messages
      .stream({ model: 'policy', max_tokens: 100, tools, messages: [{ role: 'user', content: 'list the files' }] })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Listing.' }),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_call_rec1', name: 'shell', input: { command: 'ls' } }),
    ]);
    const second = await anthropic.messages.create({ model: 'policy', max_tokens: 100, messages: [{ role: 'user', content: 'and now?' }] });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'The edited answer.' })]);
  });
});

describe('a session whose script is the whole episode (a replay)', () => {
  it('answers a policy call past the script with a final message of its own, never asking the upstream, and records the overrun', async () => {
    const session = withScript(scripted());
    session.endAfterScript = true;
    const anthropic = new Anthropic({ baseURL: `${fx.proxy.url}/s/${session.secret}`, apiKey: 'x', maxRetries: 0 });
    const before = fx.fake.requests.length;
    const ask = (content: string) => anthropic.messages.stream({ model: 'policy', max_tokens: 100, messages: [{ role: 'user', content }] }).finalMessage();
    await ask('list the files');
    await ask('and now?');
    const third = await ask('and after that?');
    expect(third.stop_reason).toBe('end_turn');
    expect(third.content).toEqual([
      expect.objectContaining({ type: 'text', text: expect.stringMatching(/made only 2 model call\(s\); there is no recorded answer for call 3/) }),
    ]);
    await anthropic.messages.create({ model: 'policy-small', max_tokens: 10, messages: [{ role: 'user', content: 'a title?' }] }); // helpers still go upstream
    expect(fx.fake.requests.length - before).toBe(1);

    const calls = (await fx.sink.waitFor(fx.sink.calls.length)).filter((c) => c.rolloutId === session.rolloutId);
    expect(calls.map((c) => [c.seq, c.label, c.upstream, c.status])).toEqual([
      [1, 'policy', SCRIPTED_UPSTREAM, 200],
      [2, 'policy', SCRIPTED_UPSTREAM, 200],
      [3, 'policy', BEYOND_SCRIPT_UPSTREAM, 200],
      [4, 'helper', expect.not.stringMatching(/^openforge:/), 200],
    ]);
    expect(calls[2]).toMatchObject({
      error: expect.stringMatching(/^the replay made more model calls than the original: policy call 3, while the original made 2/),
      completionTokenIds: null,
    });
  });
});
