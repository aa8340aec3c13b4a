import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import { IMAGE_PAD_COUNT, renderCompletion, renderPrompt } from '../../../src/sim/chat-template.js';
import type { PolicyAnswer } from '../../../src/sim/policies/types.js';
import { IMAGE_PAD_ID, IM_START_ID, VISION_END_ID, VISION_START_ID } from '../../../src/families/chatml/special-tokens.js';
import { decode, encode } from '../../../src/families/chatml/tokenizer.js';
import { OPENAI_BASH } from './fixtures.js';

/** What a harness appends after receiving `answer`: the assistant message as the API returned it. */
function echoed(answer: PolicyAnswer, turn: number): ChatMessage {
  return {
    role: 'assistant',
    content: answer.content,
    ...(answer.reasoning ? { reasoning_content: answer.reasoning } : {}),
    ...(answer.toolCalls.length > 0
      ? {
          tool_calls: answer.toolCalls.map((call, i) => ({
            id: `call_${turn}_${i}`,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
}

function startsWith(ids: number[], prefix: number[]): boolean {
  return prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
}

describe('chat template', () => {
  it('renders ChatML with the generation prompt at the end', () => {
    const ids = renderPrompt([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(decode(ids)).toBe('<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
    expect(ids.slice(-1 - encode('assistant\n').length)).toEqual([IM_START_ID, ...encode('assistant\n')]);
  });

  it('renders tools as JSON into the system turn, after the system message', () => {
    const text = decode(
      renderPrompt(
        [
          { role: 'system', content: 'Be careful.' },
          { role: 'user', content: 'go' },
        ],
        [OPENAI_BASH],
      ),
    );
    expect(text.startsWith('<|im_start|>system\nBe careful.\n\n# Tools\n')).toBe(true);
    expect(text).toContain(`<tools>\n${JSON.stringify(OPENAI_BASH)}\n</tools>`);
    expect(text.match(/<\|im_start\|>system/g)).toHaveLength(1);
    // Without a system message the tools still get a system turn of their own.
    expect(decode(renderPrompt([{ role: 'user', content: 'go' }], [OPENAI_BASH]))).toMatch(/^<\|im_start\|>system\n# Tools\n/);
  });

  it('treats developer messages as system messages', () => {
    expect(
      renderPrompt([
        { role: 'developer', content: 'rules' },
        { role: 'user', content: 'x' },
      ]),
    ).toEqual(
      renderPrompt([
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'x' },
      ]),
    );
  });

  it('renders content parts, images as vision tokens', () => {
    const ids = renderPrompt([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on screen?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
    const start = ids.indexOf(VISION_START_ID);
    expect(start).toBeGreaterThan(0);
    expect(ids.slice(start, start + IMAGE_PAD_COUNT + 2)).toEqual([VISION_START_ID, ...new Array(IMAGE_PAD_COUNT).fill(IMAGE_PAD_ID), VISION_END_ID]);
    expect(decode(ids)).toContain('What is on screen?<|vision_start|>');
  });

  it('renders a completion as the model would generate it', () => {
    const answer: PolicyAnswer = { content: 'Let me look.', toolCalls: [{ name: 'bash', arguments: '{"command":"ls -la"}' }] };
    expect(decode(renderCompletion(answer))).toBe('Let me look.\n<tool_call>\n{"name": "bash", "arguments": {"command":"ls -la"}}\n</tool_call><|im_end|>');
    expect(decode(renderCompletion({ content: 'Hm.', reasoning: 'think first', toolCalls: [] }))).toBe('<think>\nthink first\n</think>\n\nHm.<|im_end|>');
    expect(decode(renderCompletion({ content: null, toolCalls: [] }))).toBe('<|im_end|>');
  });

  it('groups consecutive tool results into one user turn', () => {
    const text = decode(
      renderPrompt([
        { role: 'user', content: 'go' },
        { role: 'tool', tool_call_id: 'a', content: 'one' },
        { role: 'tool', tool_call_id: 'b', content: 'two' },
      ]),
    );
    expect(text).toContain('<|im_start|>user\n<tool_response>\none\n</tool_response>\n<tool_response>\ntwo\n</tool_response><|im_end|>\n');
  });

  describe('prefix invariant: the next prompt starts with the previous prompt plus the answer', () => {
    const answers: PolicyAnswer[] = [
      { content: "I'll list the files first.", toolCalls: [{ name: 'bash', arguments: '{"command":"ls -la /workspace"}' }] },
      {
        content: null,
        toolCalls: [
          { name: 'bash', arguments: '{"command": "cat notes.txt"}' },
          { name: 'bash', arguments: '{"command":"echo \\"done ✓\\" > out.txt"}' },
        ],
      },
      { content: 'Done: out.txt now says "done ✓".', toolCalls: [] },
    ];
    const toolResults = [['total 8\ndrwxr-xr-x  2 root root 4096 .\n-rw-r--r--  1 root root   12 notes.txt'], ['remember the tick', '']];

    function checkConversation(list: PolicyAnswer[]): void {
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Write "done ✓" to out.txt.' },
      ];
      list.forEach((answer, turn) => {
        const prompt = renderPrompt(messages, [OPENAI_BASH]);
        const completion = renderCompletion(answer);
        messages.push(echoed(answer, turn));
        for (const [i, result] of (toolResults[turn] ?? []).entries()) {
          messages.push({ role: 'tool', tool_call_id: `call_${turn}_${i}`, content: result });
        }
        if (turn === list.length - 1) messages.push({ role: 'user', content: 'Thanks. One more thing?' });
        const next = renderPrompt(messages, [OPENAI_BASH]);
        expect(startsWith(next, [...prompt, ...completion]), `turn ${turn + 1}`).toBe(true);
      });
    }

    it('holds across a 3-turn tool conversation (content, tool calls, tool results)', () => {
      checkConversation(answers);
    });

    it('holds with reasoning when the harness echoes reasoning_content', () => {
      checkConversation(answers.map((a, i) => ({ ...a, reasoning: `plan for turn ${i + 1}:\n- check` })));
    });

    it('breaks when a harness re-serializes the arguments it got (so the check above can fail)', () => {
      const answer = answers[0] as PolicyAnswer;
      const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
      const prompt = renderPrompt(messages, [OPENAI_BASH]);
      const reformatted = { ...answer, toolCalls: answer.toolCalls.map((c) => ({ ...c, arguments: JSON.stringify(JSON.parse(c.arguments), null, 1) })) };
      const next = renderPrompt([...messages, echoed(reformatted, 0)], [OPENAI_BASH]);
      expect(startsWith(next, [...prompt, ...renderCompletion(answer)])).toBe(false);
    });
  });
});
