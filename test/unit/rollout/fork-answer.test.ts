import { describe, expect, it } from 'vitest';
import { parseForkAnswer, recordedAnswer } from '../../../src/rollout/fork-answer.js';

const SHELL_SCHEMA = { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number' } }, required: ['command'] };

const CHAT = {
  protocol: 'chat' as const,
  request: {
    model: 'policy',
    messages: [{ role: 'user', content: 'go' }],
    tools: [{ type: 'function', function: { name: 'bash', parameters: SHELL_SCHEMA } }],
  },
};

/** As Codex sends it: instructions, input items, a function tool and a freeform (custom) tool. */
const RESPONSES = {
  protocol: 'responses' as const,
  request: {
    model: 'policy',
    instructions: 'You are Codex.',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the bug' }] }],
    tools: [
      { type: 'function', name: 'shell', parameters: SHELL_SCHEMA },
      { type: 'custom', name: 'apply_patch', description: 'patch files' },
    ],
  },
};

/** As Claude Code sends it: system blocks, messages, custom tools with input_schema. */
const ANTHROPIC = {
  protocol: 'anthropic' as const,
  request: {
    model: 'policy',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are Claude Code.' }],
    messages: [{ role: 'user', content: 'fix the bug' }],
    tools: [
      { name: 'Bash', input_schema: SHELL_SCHEMA },
      { name: 'Read', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } },
    ],
  },
};

const chatAnswer = (name: string, args: unknown) =>
  JSON.stringify({ content: null, tool_calls: [{ type: 'function', function: { name, arguments: JSON.stringify(args) } }] });

describe('an edited answer for a Chat Completions call', () => {
  it('is the assistant message the proxy serves, with ids for its tool calls', () => {
    const message = parseForkAnswer(chatAnswer('bash', { command: 'ls' }), CHAT);
    expect(message).toEqual({
      content: null,
      tool_calls: [{ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    });
    expect(
      parseForkAnswer(
        '{"role": "assistant", "content": "done", "reasoning_content": "all good", "tool_calls": [{"id": "call_mine", "function": {"name": "bash", "arguments": "{\\"command\\": \\"true\\"}"}}]}',
        CHAT,
      ),
    ).toEqual({
      content: 'done',
      reasoning_content: 'all good',
      tool_calls: [{ id: 'call_mine', type: 'function', function: { name: 'bash', arguments: '{"command": "true"}' } }],
    });
  });

  it('is refused, naming the problem: not JSON, not a message, a list, an undeclared tool, bad or incomplete arguments', () => {
    expect(() => parseForkAnswer('{content: 1}', CHAT)).toThrow(/not valid JSON[\s\S]*hint: write a Chat assistant message/);
    expect(() => parseForkAnswer('{"content": 5}', CHAT)).toThrow(/not a valid assistant message: content: /);
    expect(() => parseForkAnswer('[{"type": "text", "text": "hi"}]', CHAT)).toThrow(/is not an assistant message object/);
    expect(() => parseForkAnswer('{}', CHAT)).toThrow(/says nothing/);
    expect(() => parseForkAnswer(chatAnswer('python', { code: '1' }), CHAT)).toThrow(/"python", which the request does not declare[\s\S]*declared tools: bash/);
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "bash", "arguments": "rm -rf /"}}]}', CHAT)).toThrow(
      /arguments are not valid JSON text/,
    );
    expect(() => parseForkAnswer(chatAnswer('bash', [1]), CHAT)).toThrow(/must encode a JSON object/);
    expect(() => parseForkAnswer(chatAnswer('bash', { timeout: 5 }), CHAT)).toThrow(
      /tool call 1 \(bash\): the required parameter "command" is missing[\s\S]*"command","timeout"/,
    );
  });
});

describe('an edited answer for a Responses call (Codex)', () => {
  it('may be a list of output items, a response object, or a Chat message; custom tools keep their raw input', () => {
    const items = [
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'look first' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Listing.' }] },
      { type: 'function_call', name: 'shell', arguments: '{"command": "ls"}' },
      { type: 'custom_tool_call', call_id: 'call_patch', name: 'apply_patch', input: '*** Begin Patch' },
    ];
    const expected = {
      content: 'Listing.',
      reasoning_content: 'look first',
      tool_calls: [
        { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'shell', arguments: '{"command": "ls"}' } },
        { id: 'call_patch', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
      ],
    };
    expect(parseForkAnswer(JSON.stringify(items), RESPONSES)).toEqual(expected);
    expect(parseForkAnswer(JSON.stringify({ output: items }), RESPONSES)).toEqual(expected);
    expect(parseForkAnswer(chatAnswer('shell', { command: 'ls' }), RESPONSES).tool_calls?.[0]?.function.name).toBe('shell');
  });

  it('is refused, naming the item and the problem', () => {
    expect(() => parseForkAnswer('[]', RESPONSES)).toThrow(/empty list of output items/);
    expect(() => parseForkAnswer('[{"type": "function_call_output", "call_id": "c", "output": "x"}]', RESPONSES)).toThrow(
      /output\[0\]\.type "function_call_output" is not part of an answer/,
    );
    expect(() => parseForkAnswer('[{"type": "message", "role": "user", "content": "hi"}]', RESPONSES)).toThrow(/output\[0\] is a user message/);
    expect(() => parseForkAnswer('[{"type": "function_call", "name": "shell"}]', RESPONSES)).toThrow(/not valid: output\[0\]\.arguments/);
    expect(() => parseForkAnswer('[{"type": "function_call", "name": "exec", "arguments": "{}"}]', RESPONSES)).toThrow(
      /"exec", which the request does not declare[\s\S]*declared tools: shell, apply_patch/,
    );
    expect(() => parseForkAnswer('[{"type": "function_call", "name": "shell", "arguments": "{}"}]', RESPONSES)).toThrow(
      /required parameter "command" is missing/,
    );
    expect(() => parseForkAnswer('"hello"', RESPONSES)).toThrow(/not an assistant message object[\s\S]*write a list of Responses output items/);
  });
});

describe('an edited answer for an Anthropic Messages call (Claude Code)', () => {
  it('may be a list of content blocks, a message, or a Chat message', () => {
    const blocks = [
      { type: 'thinking', thinking: 'check the file' },
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', name: 'Read', input: { file_path: '/workspace/a.py' } },
    ];
    const expected = {
      content: 'Reading it.',
      reasoning_content: 'check the file',
      tool_calls: [{ id: expect.stringMatching(/^[0-9a-f]{24}$/), type: 'function', function: { name: 'Read', arguments: '{"file_path":"/workspace/a.py"}' } }],
    };
    expect(parseForkAnswer(JSON.stringify(blocks), ANTHROPIC)).toEqual(expected);
    expect(parseForkAnswer(JSON.stringify({ role: 'assistant', content: blocks }), ANTHROPIC)).toEqual(expected);
    expect(parseForkAnswer('{"content": "All done."}', ANTHROPIC)).toEqual({ content: 'All done.' });
  });

  it('is refused, naming the block and the problem', () => {
    expect(() => parseForkAnswer('[]', ANTHROPIC)).toThrow(/empty list of content blocks/);
    expect(() => parseForkAnswer('[{"type": "tool_use", "name": "Bash", "input": "ls"}]', ANTHROPIC)).toThrow(/not valid: content\.0\.input/);
    expect(() => parseForkAnswer('[{"type": "tool_result", "tool_use_id": "t", "content": "x"}]', ANTHROPIC)).toThrow(
      /content\.0\.type: a tool_result block cannot appear in an answer/,
    );
    expect(() => parseForkAnswer('[{"type": "tool_use", "name": "Write", "input": {}}]', ANTHROPIC)).toThrow(
      /"Write", which the request does not declare[\s\S]*declared tools: Bash, Read/,
    );
    expect(() => parseForkAnswer('[{"type": "tool_use", "name": "Read", "input": {}}]', ANTHROPIC)).toThrow(
      /\(Read\): the required parameter "file_path" is missing/,
    );
  });
});

describe('a recorded answer served again', () => {
  it('comes back as the Chat message each protocol recorded, ids kept so the harness echoes the same history', () => {
    const chat = recordedAnswer({
      ...CHAT,
      seq: 1,
      response: {
        choices: [
          { message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{}' } }] } },
        ],
      },
    });
    expect(chat.tool_calls?.[0]?.id).toBe('call_1');
    const responses = recordedAnswer({
      ...RESPONSES,
      seq: 2,
      response: { output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_2', name: 'shell', arguments: '{}', status: 'completed' }] },
    });
    expect(responses.tool_calls).toEqual([{ id: 'call_2', type: 'function', function: { name: 'shell', arguments: '{}' } }]);
    const anthropic = recordedAnswer({
      ...ANTHROPIC,
      seq: 3,
      response: { content: [{ type: 'tool_use', id: 'toolu_call_3', name: 'Bash', input: { command: 'ls' } }] },
    });
    expect(anthropic.tool_calls).toEqual([{ id: 'call_3', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }]);
    expect(() => recordedAnswer({ ...CHAT, seq: 4, response: null })).toThrow(/call 4's recorded answer holds no assistant message/);
  });
});
