import { describe, expect, it } from 'vitest';
import { ProxyHttpError } from '../../../src/proxy/http/http-error.js';
import { responsesProtocol } from '../../../src/proxy/protocols/responses/protocol.js';
import type { PreparedCall } from '../../../src/proxy/protocols/types.js';

function upstream(body: Record<string, unknown>) {
  return (responsesProtocol.endpoints[0]!.prepare as (body: unknown) => PreparedCall)({ model: 'policy', ...body }).upstreamRequest;
}

function rejection(body: unknown): ProxyHttpError {
  try {
    (responsesProtocol.endpoints[0]!.prepare as (body: unknown) => PreparedCall)(body);
  } catch (err) {
    if (err instanceof ProxyHttpError) return err;
    throw err;
  }
  throw new Error('expected the request to be rejected');
}

const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgo=';

describe('Responses request → Chat Completions request', () => {
  it('turns instructions into a system message and a string input into a user message', () => {
    const request = upstream({ instructions: 'Be brief.', input: 'Say hello.', stream: true, max_output_tokens: 64, temperature: 0.2, top_p: 0.9 });
    expect(request).toEqual({
      model: 'policy',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello.' },
      ],
      stream: true,
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
    });
  });

  it('tolerates the fields Codex sends without forwarding them', () => {
    const request = upstream({
      input: [{ type: 'message', id: 'msg_1', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { summary: 'auto', effort: 'high' },
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'thread-1',
      text: { verbosity: 'low' },
      client_metadata: { 'x-codex-window-id': 'w' },
      stream: true,
    });
    expect(request).toEqual({ model: 'policy', messages: [{ role: 'user', content: 'hi' }], stream: true });
  });

  it('maps developer to system, keeps several parts as a list, and images as image_url parts', () => {
    const request = upstream({
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in these?' },
            { type: 'input_image', image_url: 'https://example.test/cat.png', detail: 'low' },
            { type: 'input_image', image_url: PNG_DATA_URL },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'You are Codex.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: 'https://example.test/cat.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: PNG_DATA_URL } },
        ],
      },
    ]);
  });

  it('groups a turn as a Chat template expects: reasoning, text and consecutive calls in one assistant message', () => {
    const request = upstream({
      input: [
        { role: 'user', content: 'List files, then show the notes.' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'a summary' }],
          content: [{ type: 'reasoning_text', text: 'Two commands.' }],
          encrypted_content: 'opaque',
        },
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Running both.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"ls"}', status: 'completed' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'exec_command', arguments: '{"cmd": "cat notes.txt"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'notes.txt\n' },
        {
          type: 'function_call_output',
          call_id: 'call_2',
          output: [
            { type: 'input_text', text: 'remember the milk' },
            { type: 'input_image', image_url: PNG_DATA_URL },
          ],
        },
        { type: 'function_call', call_id: 'call_3', name: 'exec_command', arguments: '{"cmd":"true"}' },
        { type: 'function_call_output', call_id: 'call_3', output: [{ type: 'input_text', text: '' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Done' },
            { type: 'output_text', text: '.' },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'List files, then show the notes.' },
      {
        role: 'assistant',
        content: 'Running both.',
        reasoning_content: 'Two commands.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } },
          { id: 'call_2', type: 'function', function: { name: 'exec_command', arguments: '{"cmd": "cat notes.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'notes.txt\n' },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        content: [
          { type: 'text', text: 'remember the milk' },
          { type: 'image_url', image_url: { url: PNG_DATA_URL } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"true"}' } }] },
      { role: 'tool', tool_call_id: 'call_3', content: '' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('starts a new assistant message after reasoning, and drops reasoning no assistant message follows', () => {
    const request = upstream({
      input: [
        { role: 'user', content: 'go' },
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'first' }] },
        { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'second' }] },
        { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'orphan' }] },
        { role: 'user', content: 'again' },
        // reasoning with only a summary or encrypted content carries no model tokens
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 's' }], encrypted_content: 'x' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, reasoning_content: 'first', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'assistant', content: null, reasoning_content: 'second', tool_calls: [{ id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it('translates function, namespace and custom tools, drops hosted ones, and maps tool_choice', () => {
    const request = upstream({
      input: 'hi',
      tools: [
        {
          type: 'function',
          name: 'exec_command',
          description: 'Runs a command.',
          strict: false,
          parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
        },
        {
          type: 'namespace',
          name: 'multi_agent_v1',
          description: 'Sub-agents.',
          tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }],
        },
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Edit files.',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch"' },
        },
        { type: 'web_search', external_web_access: true },
        { type: 'local_shell' },
      ],
      tool_choice: { type: 'function', name: 'exec_command' },
      parallel_tool_calls: false,
    });
    expect(request.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'exec_command',
          description: 'Runs a command.',
          parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
          strict: false,
        },
      },
      { type: 'function', function: { name: 'multi_agent_v1__spawn_agent', parameters: { type: 'object', properties: {} } } },
      {
        type: 'function',
        function: {
          name: 'apply_patch',
          description: 'Edit files.\n\nThe input must follow this lark grammar:\nstart: "*** Begin Patch"',
          parameters: {
            type: 'object',
            properties: { input: { type: 'string', description: 'The raw input for this freeform tool.' } },
            required: ['input'],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(request.tool_choice).toEqual({ type: 'function', function: { name: 'exec_command' } });
    expect(request.parallel_tool_calls).toBe(false);
  });

  it('sends no tool_choice when no tool is left to choose', () => {
    const request = upstream({ input: 'hi', tools: [{ type: 'web_search' }], tool_choice: 'auto', parallel_tool_calls: true });
    expect(request).not.toHaveProperty('tools');
    expect(request).not.toHaveProperty('tool_choice');
    expect(request).not.toHaveProperty('parallel_tool_calls');
  });

  it('replays custom, namespaced and local shell calls as the Chat calls they were generated as', () => {
    const request = upstream({
      input: [
        { role: 'user', content: 'patch it' },
        { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch\n"quoted"' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: 'Success.' },
        { type: 'function_call', call_id: 'c2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c2', output: 'spawned' },
        { type: 'local_shell_call', call_id: 'c3', status: 'completed', action: { type: 'exec', command: ['ls'] } },
        { type: 'function_call_output', call_id: 'c3', output: '' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'ghost_snapshot', ghost_commit: { id: 'abc' } },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'patch it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch\\n\\"quoted\\""}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Success.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'multi_agent_v1__spawn_agent', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c2', content: 'spawned' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c3', type: 'function', function: { name: 'local_shell', arguments: '{"type":"exec","command":["ls"]}' } }],
      },
      { role: 'tool', tool_call_id: 'c3', content: '' },
    ]);
  });

  it('keeps the harness body untouched', () => {
    const body = { model: 'policy', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] };
    const snapshot = structuredClone(body);
    (responsesProtocol.endpoints[0]!.prepare as (body: unknown) => PreparedCall)(body);
    expect(body).toEqual(snapshot);
  });
});

describe('Responses request validation', () => {
  it.each([
    [{ input: 'hi' }, 'model: '],
    [{ model: 'policy' }, 'input: the request has no instructions and no input'],
    [{ model: 'policy', input: 42 }, 'input: expected a string or a list of input items'],
    [
      {
        model: 'policy',
        input: [
          { role: 'user', content: 'a' },
          { type: 'file_search_call', id: 'x' },
        ],
      },
      'input[1].type: unsupported input item type "file_search_call"',
    ],
    [{ model: 'policy', input: ['hello'] }, 'input[0]: expected an item object'],
    [{ model: 'policy', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input[0].call_id: '],
    [{ model: 'policy', input: [{ type: 'function_call_output', call_id: 'a', output: 7 }] }, 'input[0].output: expected a string or a list of content parts'],
    [{ model: 'policy', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role: '],
    [
      {
        model: 'policy',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'a' },
              { type: 'input_image', file_id: 'file-1' },
            ],
          },
        ],
      },
      'input[0].content[1].image_url: input_image needs image_url',
    ],
    [
      { model: 'policy', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input[0].content[0].type: unsupported content part "input_file"',
    ],
    [
      { model: 'policy', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: PNG_DATA_URL }] }] },
      'input[0].content[0].type: an assistant message can only hold text',
    ],
    [{ model: 'policy', input: 'hi', tools: [{ type: 'function', parameters: {} }] }, 'tools[0].name: '],
    [
      {
        model: 'policy',
        input: 'hi',
        tools: [
          { type: 'function', name: 'a__b' },
          { type: 'namespace', name: 'a', tools: [{ type: 'function', name: 'b' }] },
        ],
      },
      'tools[1].tools[0].name: tool name "a__b" is declared twice',
    ],
    [
      { model: 'policy', input: 'hi', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'web_search' } },
      'tool_choice: a tool choice of type "web_search"',
    ],
    [{ model: 'policy', input: 'hi', max_output_tokens: 0 }, 'max_output_tokens: '],
    [{ model: 'policy', input: 'hi', previous_response_id: 'resp_1' }, 'previous_response_id: the recording proxy stores no responses'],
  ])('rejects %j naming the field', (body, expected) => {
    const error = rejection(body);
    expect(error.status).toBe(400);
    expect(error.message).toContain(`invalid responses request: ${expected}`);
  });

  it('answers errors in OpenAI shape', () => {
    expect(responsesProtocol.endpoints[0]!.errorBody('bad', 'invalid_request_error', 'invalid_request')).toEqual({
      error: { message: 'bad', type: 'invalid_request_error', param: null, code: 'invalid_request' },
    });
  });
});
