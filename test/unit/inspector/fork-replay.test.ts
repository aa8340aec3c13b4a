import { describe, expect, it } from 'vitest';
import { parseForkAnswer } from '../../../src/rollout/fork.js';
import { BEYOND_SCRIPT_UPSTREAM } from '../../../src/proxy/calls/scripted-answers.js';
import { compareEpisodes } from '../../../src/rollout/replay.js';
import { Store, type RolloutRecord } from '../../../src/store/store.js';
import type { RecordedCall } from '../../../src/records/call.js';

const REQUEST = {
  protocol: 'chat' as const,
  request: { model: 'policy', messages: [{ role: 'user', content: 'go' }], tools: [{ type: 'function', function: { name: 'bash', parameters: {} } }] },
};
const bash = (command: string) =>
  JSON.stringify({ content: null, tool_calls: [{ type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] });

describe('an edited fork answer', () => {
  it('becomes the assistant message the proxy serves, tool calls given ids', () => {
    expect(parseForkAnswer(bash('ls'), REQUEST)).toEqual({
      content: null,
      tool_calls: [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    });
    expect(parseForkAnswer('{"content": "done"}', REQUEST)).toEqual({ content: 'done' });
  });

  it('is refused with a message naming what is wrong', () => {
    expect(() => parseForkAnswer('{content: 1}', REQUEST)).toThrow(/not valid JSON/);
    expect(() => parseForkAnswer('{"content": 5}', REQUEST)).toThrow(/content: /);
    expect(() => parseForkAnswer('{}', REQUEST)).toThrow(/says nothing/);
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "python", "arguments": "{}"}}]}', REQUEST)).toThrow(
      /"python", which the request does not declare[\s\S]*bash/,
    );
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "bash", "arguments": "[1]"}}]}', REQUEST)).toThrow(/must encode a JSON object/);
    expect(() => parseForkAnswer('{"tool_calls": [{"function": {"name": "bash", "arguments": {"command": "ls"}}}]}', REQUEST)).toThrow(/arguments/);
  });
});

describe('comparing a replay with its original', () => {
  const rollout = (reward: number | null) => ({ reward, errorType: null }) as RolloutRecord;
  const call = (seq: number, toolResult: string | null, command: string | null): RecordedCall =>
    ({
      seq,
      label: 'policy',
      upstream: 'http://sim',
      protocol: 'chat',
      status: 200,
      request: {
        messages: [
          { role: 'user', content: 'go' },
          ...(toolResult === null
            ? []
            : [
                { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
                { role: 'tool', content: toolResult },
              ]),
        ],
      },
      response: {
        choices: [
          {
            message:
              command === null
                ? { role: 'assistant', content: 'done' }
                : { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
          },
        ],
      },
    }) as unknown as RecordedCall;

  it('finds nothing when tool results and reward agree, and names the call and the reward when they do not', () => {
    const original = [call(1, null, 'ls'), call(2, 'a.txt', null)];
    expect(compareEpisodes(rollout(1), original, rollout(1), [call(1, null, 'ls'), call(2, 'a.txt', null)])).toEqual([]);
    const diffs = compareEpisodes(rollout(1), original, rollout(0), [call(1, null, 'ls'), call(2, 'b.txt', null)]);
    expect(diffs[0]).toMatch(/^call 2: the tool results sent back differ/);
    expect(diffs[1]).toBe('reward 1 ≠ 0');
    expect(compareEpisodes(rollout(1), original, rollout(1), original.slice(0, 1))).toEqual([
      "the replay made fewer model calls than the original: it ended before the original's call 2",
    ]);
  });

  it('reports a call past the recording, and ignores helper calls and the retried failures of the original', () => {
    const original = [call(1, null, 'ls'), call(2, 'a.txt', null)];
    const overrun = {
      ...call(3, 'a.txt', null),
      upstream: BEYOND_SCRIPT_UPSTREAM,
      error: 'the replay made more model calls than the original',
    } as RecordedCall;
    expect(compareEpisodes(rollout(1), original, rollout(0), [...original, overrun])).toEqual([
      'the replay made more model calls than the original: call 3',
      'reward 1 ≠ 0',
    ]);
    const helper = { ...call(1, null, 'ls'), label: 'helper' } as RecordedCall;
    const failed = { ...call(2, null, 'ls'), status: 500, response: null } as RecordedCall;
    const renumbered = [call(3, null, 'ls'), call(4, 'a.txt', null)];
    expect(compareEpisodes(rollout(1), [helper, failed, ...renumbered], rollout(1), original)).toEqual([]);
  });

  it('compares tool calls and tool results of Anthropic and Responses episodes', () => {
    const anthropic = (seq: number, result: string | null, command: string): RecordedCall =>
      ({
        seq,
        label: 'policy',
        upstream: 'u',
        protocol: 'anthropic',
        status: 200,
        request: {
          system: 's',
          messages: [
            { role: 'user', content: 'go' },
            ...(result === null
              ? []
              : [
                  { role: 'assistant', content: [{ type: 'tool_use', id: `t${seq}`, name: 'Bash', input: { command: 'ls' } }] },
                  { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${seq}`, content: result }] },
                ]),
          ],
        },
        response: { content: [{ type: 'tool_use', id: `t${seq + 1}`, name: 'Bash', input: { command } }] },
      }) as unknown as RecordedCall;
    const a = [anthropic(1, null, 'ls'), anthropic(2, 'a.txt', 'cat a.txt')];
    expect(compareEpisodes(rollout(1), a, rollout(1), [anthropic(1, null, 'ls'), anthropic(2, 'a.txt', 'cat a.txt')])).toEqual([]);
    const d = compareEpisodes(rollout(1), a, rollout(1), [anthropic(1, null, 'ls'), anthropic(2, 'b.txt', 'cat b.txt')]);
    expect(d[0]).toMatch(/^call 2: the tool results sent back differ: .*a\.txt.* ≠ .*b\.txt/);
    expect(d[1]).toMatch(/^call 2: the tool calls differ: .*cat a\.txt.* ≠ .*cat b\.txt/);

    const responses = (seq: number, result: string | null, patch: string): RecordedCall =>
      ({
        seq,
        label: 'policy',
        upstream: 'u',
        protocol: 'responses',
        status: 200,
        request: {
          instructions: 'i',
          input: [
            { role: 'user', content: 'go' },
            ...(result === null
              ? []
              : [
                  { type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: 'p' },
                  { type: 'custom_tool_call_output', call_id: 'c', output: result },
                ]),
          ],
        },
        response: { output: [{ type: 'custom_tool_call', call_id: `c${seq}`, name: 'apply_patch', input: patch }] },
      }) as unknown as RecordedCall;
    const r = [responses(1, null, 'p'), responses(2, 'ok', 'q')];
    // the harness's own run-to-run noise (Codex: a chunk id) is masked, a real change is not
    const noisy = [responses(1, null, 'p'), responses(2, 'Chunk ID: 1a2b\nok', 'q')];
    const codex = [/Chunk ID: \w+/g];
    expect(compareEpisodes(rollout(1), noisy, rollout(1), [responses(1, null, 'p'), responses(2, 'Chunk ID: 9f8e\nok', 'q')], codex)).toEqual([]);
    expect(compareEpisodes(rollout(1), noisy, rollout(1), [responses(1, null, 'p'), responses(2, 'Chunk ID: 9f8e\nfailed', 'q')], codex)).toEqual([
      expect.stringMatching(/^call 2: the tool results sent back differ: .*…\\nok.* ≠ .*…\\nfailed/),
    ]);
    expect(compareEpisodes(rollout(1), noisy, rollout(1), [responses(1, null, 'p'), responses(2, 'Chunk ID: 9f8e\nok', 'q')])).toHaveLength(1);
    expect(compareEpisodes(rollout(1), r, rollout(1), [responses(1, null, 'p'), responses(2, 'ok', 'q')])).toEqual([]);
    expect(compareEpisodes(rollout(1), r, rollout(1), [responses(1, null, 'p'), responses(2, 'failed', 'q2')])).toEqual([
      expect.stringMatching(/^call 2: the tool results sent back differ: .*ok.* ≠ .*failed/),
      expect.stringMatching(/^call 2: the tool calls differ: .*"q".* ≠ .*"q2"/),
    ]);
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
