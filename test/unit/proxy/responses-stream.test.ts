import { describe, expect, it } from 'vitest';
import type { ChatBody, ChatDelta } from '../../../src/engine-wire/chat-wire.js';
import { responsesProtocol } from '../../../src/proxy/protocols/responses/protocol.js';
import type { PreparedCall, SseEvent, StreamTranslator } from '../../../src/proxy/protocols/types.js';

type Event = { type: string; sequence_number: number } & Record<string, any>;

const TOOLS = [
  { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
  { type: 'custom', name: 'apply_patch', description: 'Edit files.' },
  { type: 'namespace', name: 'multi_agent_v1', tools: [{ type: 'function', name: 'spawn_agent' }] },
];

function translator(): StreamTranslator {
  return (responsesProtocol.endpoints[0]!.prepare as (body: unknown) => PreparedCall)({
    model: 'policy',
    input: 'go',
    tools: TOOLS,
    stream: true,
  }).streamTranslator();
}

function chunk(delta: ChatDelta, finish: string | null = null): ChatBody {
  return { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] };
}

const USAGE_CHUNK: ChatBody = { id: 'c', choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } };

function parse(events: SseEvent[]): Event[] {
  return events.map((e) => {
    const data = JSON.parse(e.data) as Event;
    expect(e.event).toBe(data.type);
    return data;
  });
}

function run(t: StreamTranslator, chunks: ChatBody[], ending: 'end' | 'fail' = 'end'): Event[] {
  const events = chunks.flatMap((c) => t.push(c));
  events.push(...(ending === 'end' ? t.end() : t.fail('upstream stream failed: socket hang up')));
  return parse(events);
}

function doneItems(events: Event[]) {
  return events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
}

describe('Responses stream translation', () => {
  it('streams reasoning, then text, then a tool call, each closed before the next opens', () => {
    const events = run(translator(), [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Need ' }),
      chunk({ reasoning_content: 'ls.' }),
      chunk({ content: 'Listing' }),
      chunk({ content: ' files.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'exec_command', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"cmd":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
      chunk({}, 'tool_calls'),
      USAGE_CHUNK,
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const items = doneItems(events);
    expect(items).toMatchObject([
      { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Need ls.' }], status: 'completed' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Listing files.', annotations: [] }], status: 'completed' },
      { type: 'function_call', call_id: 'call_9', name: 'exec_command', arguments: '{"cmd":"ls"}', status: 'completed' },
    ]);
    const completed = events.at(-1)!;
    expect(completed.response).toMatchObject({ status: 'completed', output: items, usage: { input_tokens: 7, output_tokens: 5, total_tokens: 12 } });
    expect(items.map((item) => item.id)).toEqual(events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item.id));
  });

  it('keeps interleaved parallel tool calls apart and closes them when the model finishes', () => {
    const events = run(translator(), [
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'exec_command', arguments: '{"cmd":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'exec_command', arguments: '{"cmd":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"pwd"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events.filter((e) => e.type === 'response.output_item.done')).toHaveLength(2);
    expect(doneItems(events)).toMatchObject([
      { call_id: 'call_a', arguments: '{"cmd":"ls"}' },
      { call_id: 'call_b', arguments: '{"cmd":"pwd"}' },
    ]);
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.map((e) => [e.output_index, e.delta])).toEqual([
      [0, '{"cmd":'],
      [1, '{"cmd":'],
      [0, '"ls"}'],
      [1, '"pwd"}'],
    ]);
  });

  it('announces a call only once its name is known, with the arguments that came before', () => {
    const events = run(translator(), [
      chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"cmd"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'exec_command', arguments: ':"ls"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events.map((e) => e.type).slice(2, 4)).toEqual(['response.output_item.added', 'response.function_call_arguments.delta']);
    expect(events[2]?.item).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: '', status: 'in_progress' });
    expect(events[3]?.delta).toBe('{"cmd":"ls"}');
  });

  it('turns custom and namespaced tool calls back into their Responses items', () => {
    const events = run(translator(), [
      chunk({ tool_calls: [{ index: 0, id: 'call_p', function: { name: 'apply_patch', arguments: '{"input":"*** Begin' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ' Patch\\n"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_s', function: { name: 'multi_agent_v1__spawn_agent', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const types = events.map((e) => e.type);
    // the raw input is JSON-escaped inside the arguments, so it is only sent whole
    expect(types.filter((t) => t === 'response.function_call_arguments.delta')).toHaveLength(1);
    expect(types).toContain('response.custom_tool_call_input.done');
    expect(doneItems(events)).toEqual([
      { type: 'custom_tool_call', id: expect.stringMatching(/^ctc_/), call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch\n', status: 'completed' },
      {
        type: 'function_call',
        id: expect.stringMatching(/^fc_/),
        call_id: 'call_s',
        name: 'spawn_agent',
        namespace: 'multi_agent_v1',
        arguments: '{}',
        status: 'completed',
      },
    ]);
  });

  it('ends with response.incomplete when the model ran out of tokens', () => {
    const events = run(translator(), [chunk({ content: 'Half a sent' }), chunk({}, 'length'), USAGE_CHUNK]);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(doneItems(events)).toMatchObject([{ type: 'message', status: 'incomplete', content: [{ text: 'Half a sent' }] }]);
  });

  it('fails with response.failed, leaving out the items still being generated', () => {
    const t = translator();
    const events = run(
      t,
      [chunk({ content: 'Running.' }), chunk({ tool_calls: [{ index: 0, id: 'call_half', function: { name: 'exec_command', arguments: '{"cm' } }] })],
      'fail',
    );
    const last = events.at(-1)!;
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'upstream stream failed: socket hang up' } });
    expect(last.response.output).toMatchObject([{ type: 'message', content: [{ text: 'Running.' }] }]);
    expect(events.some((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call')).toBe(false);
    expect(t.assembled()).toEqual(last.response);
  });

  it('still opens the response when the upstream fails before its first chunk', () => {
    const events = run(translator(), [], 'fail');
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
  });

  it('records what the client saw so far when the client goes away', () => {
    const t = translator();
    t.push(chunk({ content: 'Partial' }));
    expect(t.assembled()).toMatchObject({ status: 'in_progress', output: [{ type: 'message', content: [{ text: 'Partial' }], status: 'in_progress' }] });
  });
});
