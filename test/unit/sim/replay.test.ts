import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import { createReplayPolicy } from '../../../src/sim/policies/replay.js';
import type { PolicyAnswer } from '../../../src/sim/policies/types.js';
import { SimHttpError } from '../../../src/sim/sim-http-error.js';

const recorded: PolicyAnswer[] = [
  { content: null, toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }] },
  { content: 'All done.', reasoning: 'The listing looked right.', toolCalls: [] },
];

describe('replay policy', () => {
  const policy = createReplayPolicy(recorded);
  const first: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const second: ChatMessage[] = [
    ...first,
    { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
    { role: 'tool', tool_call_id: 'a', content: 'file.txt' },
  ];

  it('answers call n with recorded answer n, n counted from the assistant messages', () => {
    expect(policy.respond({ messages: first }, {})).toEqual(recorded[0]);
    expect(policy.respond({ messages: second }, {})).toEqual(recorded[1]);
    // Independent of order or repetition: the conversation decides.
    expect(policy.respond({ messages: first }, {})).toEqual(recorded[0]);
  });

  it('answers 409 once the conversation goes past the recording', () => {
    const third: ChatMessage[] = [...second, { role: 'assistant', content: 'All done.' }, { role: 'user', content: 'and?' }];
    let error: unknown;
    try {
      policy.respond({ messages: third }, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SimHttpError);
    expect((error as SimHttpError).status).toBe(409);
    expect((error as SimHttpError).message).toMatch(/2 recorded answer/);
  });
});
