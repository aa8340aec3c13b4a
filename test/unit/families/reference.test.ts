/**
 * The families against references nobody here wrote: every generated conversation rendered by the family
 * equals Python jinja2's rendering of the same template (set up as transformers does, on the request as
 * vLLM reads it), and every prompt and completion tokenizes to the ids of Hugging Face's Rust tokenizers.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { createTemplateFamily } from '../../../src/families/template-family.js';
import { parseJsonLossless } from '../../../src/families/json/json-value.js';
import { KNOWN_FAMILIES, chatTemplate, loadFamily } from '../../../src/families/registry.js';
import { packageTokenizerFiles } from '../../../src/families/tokenizer/hf-tokenizer.js';
import type { ModelFamily } from '../../../src/families/family.js';
import type { Answer, ChatMessage, ToolSpec } from '../../../src/families/types.js';
import { seededRandom } from '../../../src/util/seeded-random.js';
import { pythonReference } from '../../helpers/python-reference.js';
import { caseJson, generateCases, type Case, type FamilyName } from './reference-cases.js';

interface RustTokenizer {
  encode(text: string, pair: null, options: { addSpecialTokens: boolean }): Promise<{ getIds(): number[] }>;
  decode(ids: number[], skipSpecialTokens: boolean): Promise<string>;
}
const { Tokenizer: RustTokenizers } = createRequire(import.meta.url)('@anush008/tokenizers') as { Tokenizer: { fromFile(path: string): RustTokenizer } };

const CASES_PER_FAMILY = 200;
const cases = generateCases(CASES_PER_FAMILY, 20250115);

/** The family, reading a client's `reasoning_content` key when the case says an older vLLM would. */
function familyFor(name: FamilyName, acceptReasoningContentKey: boolean): ModelFamily {
  const base = loadFamily(name);
  if (!acceptReasoningContentKey) return base;
  const files = packageTokenizerFiles(KNOWN_FAMILIES[name]!.package);
  return createTemplateFamily({
    name,
    tokenizer: base.tokenizer,
    template: chatTemplate('', files, name),
    format: KNOWN_FAMILIES[name]!.format,
    ingest: { acceptReasoningContentKey: true },
  });
}

type Outcome = { ok: string } | { error: string };

function render(c: Case): Outcome {
  const family = familyFor(c.family, c.accept_reasoning_content_key);
  const { enable_thinking: thinking, ...kwargs } = c.kwargs;
  try {
    const text = family.renderPrompt(c.messages as unknown as ChatMessage[], c.tools as unknown as ToolSpec[] | null, {
      addGenerationPrompt: c.add_generation_prompt,
      enableThinking: typeof thinking === 'boolean' ? thinking : undefined,
      templateKwargs: kwargs,
    });
    return { ok: text };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** A completion of the kind the model samples, with unicode, reasoning and calls of the case's tools. */
function sampleAnswer(c: Case, seed: number): Answer {
  const r = seededRandom(seed);
  const tools = (c.tools ?? []) as { function: { name: string } }[];
  const answer: Answer = {
    reasoning: r() < 0.8 ? (['Thinking about it… 思考中 🤔', 'Need the tool.\nThen answer.', ''][Math.floor(r() * 3)] ?? '') : null,
    content: ['Sure! 好的。', '', 'Result: {"a": 1}', '  spaced  '][Math.floor(r() * 4)] ?? '',
  };
  if (tools.length > 0 && r() < 0.6) {
    answer.toolCalls = Array.from({ length: 1 + Math.floor(r() * 2) }, (_, i) => ({
      name: tools[i % tools.length]?.function.name ?? 'x',
      arguments: { q: '東京 weather 🌧', n: i, nested: { ok: true, list: [1, 2.5] } },
    }));
  }
  return answer;
}

describe.each(['qwen3', 'deepseek_v3'] as const)('%s', (name) => {
  const mine = cases.filter((c) => c.family === name);
  const config = packageTokenizerFiles(KNOWN_FAMILIES[name]!.package).tokenizerConfig;
  const rendered = new Map<string, Outcome>();

  test(`${CASES_PER_FAMILY} conversations render as Python jinja2 renders them`, () => {
    const reference = pythonReference(
      'chat',
      mine.map((c) => caseJson({ ...c, tokenizer_config: config } as Case)),
    );
    let equal = 0;
    mine.forEach((c, i) => {
      const js = render(parseJsonLossless(caseJson(c)) as unknown as Case);
      rendered.set(c.id, js);
      const py = reference[i]!;
      if ('error' in py) assert.ok('error' in js, `${c.id}: python raised ${py.error}, the family rendered`);
      else {
        assert.deepEqual(js, py, c.id);
        equal++;
      }
    });
    // errors both raise count as agreement, but most cases must render
    expect(equal).toBeGreaterThan(CASES_PER_FAMILY * 0.9);
  });

  test("prompts and completions tokenize to the ids of Hugging Face's Rust tokenizers", async () => {
    const family = loadFamily(name);
    const rust = RustTokenizers.fromFile(packageTokenizerFiles(KNOWN_FAMILIES[name]!.package).tokenizerJson);
    let tokens = 0;
    for (const [i, c] of mine.entries()) {
      const prompt = rendered.get(c.id);
      if (!prompt || !('ok' in prompt)) continue;
      const thinking = c.kwargs.enable_thinking;
      const completion = family.formatCompletion(sampleAnswer(c, i), { enableThinking: typeof thinking === 'boolean' ? thinking : undefined });
      for (const text of [prompt.ok, completion, prompt.ok + completion]) {
        const reference = (await rust.encode(text, null, { addSpecialTokens: false })).getIds();
        assert.deepEqual(family.encode(text), reference, `${c.id}: ${JSON.stringify(text.slice(0, 80))}`);
        assert.equal(family.decode(reference), await rust.decode(reference, false), c.id);
        tokens += reference.length;
      }
    }
    expect(tokens).toBeGreaterThan(10_000);
  });
});
