import { describe, expect, it } from 'vitest';
import { parseForkAnswer } from '../../../src/rollout/fork.js';
import { compareEpisodes } from '../../../src/rollout/replay.js';
import { Store, type RolloutRecord } from '../../../src/store/store.js';
import type { RecordedCall } from '../../../src/store/types.js';

const REQUEST = { protocol: 'chat' as const, request: { model: 'policy', messages: [{ role: 'user', content: 'go' }], tools: [{ type: 'function', function: { name: 'bash', parameters: {} } }] } };
const bash = (command: string) => JSON.stringify({ content: null, tool_calls: [{ type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] });

describe('an edited fork answer', () => {
  it('becomes the assistant message the proxy serves, tool calls given ids', () => {
    expect(parseForkAnswer(bash('ls'), REQUEST)).toEqual({ content: null, tool_calls: [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] });
    expect(parseForkAnswer('{"content": "done"}', REQUEST)).toEqual({ content: 'done' });
  });

  it('is refused with a message naming what is wrong', () => {
    expect(() => parseForkAnswer('{content: 1}', REQUEST)).toThrow(/not valid JSON/);
    expect(() => parseForkAnswer('{"content": 5}', REQUEST)).toThrow(/content: /);
    expect(() => parseForkAnswer('{}', REQUEST)).toThrow(/says nothing/);
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "python", "arguments": "{}"}}]}', REQUEST)).toThrow(/"python", which the request does not declare[\s\S]*bash/);
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "bash", "arguments": "[1]"}}]}', REQUEST)).toThrow(/must encode a JSON object/);
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "bash", "arguments": {"command": "ls"}}}]}', REQUEST)).toThrow(/arguments/);
  });
});

describe('comparing a replay with its original', () => {
  const rollout = (reward: number | null) => ({ reward, errorType: null }) as RolloutRecord;
  const call = (seq: number, toolResult: string | null, command: string | null): RecordedCall =>
    ({
      seq,
      protocol: 'chat',
      status: 200,
      request: { messages: [{ role: 'user', content: 'go' }, ...(toolResult === null ? [] : [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{}' } }] }, { role: 'tool', content: toolResult }])] },
      response: { choices: [{ message: command === null ? { role: 'assistant', content: 'done' } : { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{}' } }] } }] },
    }) as unknown as RecordedCall;

  it('finds nothing when tool results and reward agree, and names the call and the reward when they do not', () => {
    const original = [call(1, null, 'ls'), call(2, 'a.txt', null)];
    expect(compareEpisodes(rollout(1), original, rollout(1), [call(1, null, 'ls'), call(2, 'a.txt', null)])).toEqual([]);
    const diffs = compareEpisodes(rollout(1), original, rollout(0), [call(1, null, 'ls'), call(2, 'b.txt', null)]);
    expect(diffs[0]).toMatch(/^call 2: the tool results sent back differ/);
    expect(diffs[1]).toBe('reward 1 ≠ 0');
    expect(compareEpisodes(rollout(1), original, rollout(1), original.slice(0, 1))).toEqual(['call 2: made by the original only']);
  });
});

describe('the parent link migration', () => {
  it('stores a rollout linked to the one it forks, and lists it as a child', async () => {
    const store = await Store.open(':memory:');
    await store.createRun('r', {});
    await store.addRollout({ id: 'a', runId: 'r', taskId: 't', sampleIndex: 0, attempt: 1, harness: 'h' });
    await store.addRollout({ id: 'b', runId: 'r', taskId: 't', sampleIndex: 1, attempt: 1, harness: 'h', parent: { rolloutId: 'a', kind: 'fork', atSeq: 2 } });
    expect((await store.getRollout('a'))!.parent).toBeNull();
    expect((await store.getRollout('b'))!.parent).toEqual({ rolloutId: 'a', kind: 'fork', atSeq: 2 });
    expect((await store.childrenOf('a')).map((r) => r.id)).toEqual(['b']);
    await store.close();
  });
});
