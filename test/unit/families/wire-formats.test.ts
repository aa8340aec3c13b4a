/** Completions formatted as each family samples them, parsed back as vLLM's parsers do, whole and streamed. */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { CompletionStreamParser, ParseContext, WireFormat } from '../../../src/families/family.js';
import { deepseekV3WireFormat } from '../../../src/families/deepseek-v3/wire-format.js';
import { PyFloat } from '../../../src/families/json/json-value.js';
import { extractDeepSeekToolCalls } from '../../../src/families/parsers/deepseek-v3-tools.js';
import { extractHermesToolCalls } from '../../../src/families/parsers/hermes-tools.js';
import { extractQwen3Reasoning } from '../../../src/families/parsers/qwen3-reasoning.js';
import { qwen3WireFormat } from '../../../src/families/qwen3/wire-format.js';
import type { Answer, ParsedCompletion, StreamDelta } from '../../../src/families/types.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

const r = seededRandom(5);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

function randomAnswer(): Answer {
  const texts = ['', 'Hello 🌍', '多行\n文本\n', ' spaced ', 'has <b>tags</b> and "quotes"'];
  const answer: Answer = { reasoning: r() < 0.8 ? pick(['Think.', '思考 🤔', 'multi\nline', '']) : null, content: pick(texts) };
  if (r() < 0.6) {
    answer.toolCalls = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, i) => ({
      name: pick(['get_weather', 'search', 'run_code']),
      arguments: { q: pick(texts), i, f: new PyFloat(1), nested: { a: [1, 2.5, null, true] } },
    }));
  }
  return answer;
}

/** Deltas replayed into a message the way an OpenAI client accumulates a stream. */
function accumulate(deltas: StreamDelta[]): ParsedCompletion {
  let reasoning = '';
  let content = '';
  const calls: { name: string; arguments: string }[] = [];
  for (const d of deltas) {
    reasoning += d.reasoning_content ?? '';
    content += d.content ?? '';
    for (const tc of d.tool_calls ?? []) {
      const c = (calls[tc.index] ??= { name: '', arguments: '' });
      c.name += tc.name ?? '';
      c.arguments += tc.arguments ?? '';
    }
  }
  return { reasoning_content: reasoning || null, content: content || null, tool_calls: calls };
}

function streamInChunks(parser: CompletionStreamParser, text: string): StreamDelta[] {
  const out: StreamDelta[] = [];
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(r() * 6);
    out.push(...parser.push(text.slice(i, i + n)));
    i += n;
  }
  return out.concat(parser.finish());
}

const norm = (p: ParsedCompletion): ParsedCompletion => ({ ...p, reasoning_content: p.reasoning_content || null, content: p.content || null });

const cases: [string, WireFormat, ParseContext[]][] = [
  ['qwen3', qwen3WireFormat, [{}, { enableThinking: false }, { toolsEnabled: false }]],
  ['deepseek_v3', deepseekV3WireFormat, [{}, { toolsEnabled: false }]],
];

describe.each(cases)('%s', (_name, format, contexts) => {
  test('streamed deltas accumulate to the non-streaming parse', () => {
    for (let i = 0; i < 300; i++) {
      const ctx = contexts[i % contexts.length] ?? {};
      const text = format.formatCompletion(randomAnswer(), { enableThinking: ctx.enableThinking });
      const whole = norm(format.parseCompletion(text, ctx));
      assert.deepEqual(accumulate(streamInChunks(format.createStreamParser(ctx), text)), whole, JSON.stringify(text));
    }
  });

  test('every tool call comes back with its name and arguments as Python json.dumps writes them', () => {
    for (let i = 0; i < 200; i++) {
      const answer = randomAnswer();
      const parsed = format.parseCompletion(format.formatCompletion(answer, {}), {});
      const calls = answer.toolCalls ?? [];
      assert.deepEqual(
        parsed.tool_calls.map((c) => c.name),
        calls.map((c) => c.name),
      );
      for (const call of parsed.tool_calls) assert.match(call.arguments, /"f": 1\.0/);
    }
  });
});

test('qwen3: the think block and the newlines around the content are kept, as vLLM keeps them', () => {
  const parsed = qwen3WireFormat.parseCompletion(qwen3WireFormat.formatCompletion({ reasoning: 'R', content: 'C' }, {}), {});
  assert.deepEqual(parsed, { reasoning_content: '\nR\n', content: '\n\nC', tool_calls: [] });
  assert.deepEqual(extractQwen3Reasoning('<think>abc</think>xyz'), { reasoning: 'abc', content: 'xyz' });
  assert.deepEqual(extractQwen3Reasoning('abc</think>xyz'), { reasoning: 'abc', content: 'xyz' });
  assert.deepEqual(extractQwen3Reasoning('truncated thinking'), { reasoning: 'truncated thinking', content: null });
  assert.deepEqual(extractQwen3Reasoning('plain', { thinkingEnabled: false }), { reasoning: null, content: 'plain' });
});

test('hermes: a malformed call gives up on every call; an unclosed one runs to the end', () => {
  const text = 'hi<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call><tool_call>{oops</tool_call>';
  assert.deepEqual(extractHermesToolCalls(text), { toolsCalled: false, toolCalls: [], content: text });
  const open = extractHermesToolCalls('<tool_call>{"name": "a", "arguments": "{\\"x\\":1.0}"}');
  assert.deepEqual(open, { toolsCalled: true, toolCalls: [{ name: 'a', arguments: '{"x": 1.0}' }], content: null });
});

test('deepseek_v3: arguments pass as written, a call split over lines is not one, content ends at the marker', () => {
  const one = '<｜tool▁call▁begin｜>function<｜tool▁sep｜>bash\n```json\n{"command":"ls"}\n```<｜tool▁call▁end｜>';
  assert.deepEqual(extractDeepSeekToolCalls(`pre<｜tool▁calls▁begin｜>${one}<｜tool▁calls▁end｜>`), {
    toolsCalled: true,
    toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }],
    content: 'pre',
  });
  const split = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>bash\n```json\n{"a":\n1}\n```<｜tool▁call▁end｜>';
  assert.deepEqual(extractDeepSeekToolCalls(split), { toolsCalled: true, toolCalls: [], content: null });
});
