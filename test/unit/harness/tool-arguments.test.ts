import { describe, expect, it } from 'vitest';
import { toolArguments } from '../../../src/in-container/agents/kit/tool-arguments.js';
import type { ToolCall } from '../../../src/in-container/agents/kit/chat-client.js';

const call = (name: string, args: string): ToolCall => ({ id: 'call_1', type: 'function', function: { name, arguments: args } });

describe("a built-in agent's tool arguments", () => {
  it('are the JSON object the model wrote; no arguments at all count as an empty object', () => {
    expect(toolArguments(call('bash', '{"command":"ls -la"}'))).toEqual({ args: { command: 'ls -la' } });
    expect(toolArguments(call('computer', ''))).toEqual({ args: {} });
  });

  it('that are not JSON, or not an object, come back as the error text the model reads, naming the tool', () => {
    const broken = toolArguments(call('bash', '{"command": "ls'));
    expect(broken).toEqual({ error: expect.stringMatching(/^Error: invalid JSON arguments for tool "bash": .+/) });
    expect(toolArguments(call('computer', '["click", 10, 20]'))).toEqual({
      error: 'Error: invalid JSON arguments for tool "computer": arguments must be a JSON object',
    });
    expect(toolArguments(call('computer', 'null'))).toEqual({ error: 'Error: invalid JSON arguments for tool "computer": arguments must be a JSON object' });
  });
});
