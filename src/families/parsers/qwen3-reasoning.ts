/**
 * vLLM's `qwen3` reasoning parser, non-streaming path
 * (vllm/reasoning/qwen3_reasoning_parser.py, Qwen3ReasoningParser.extract_reasoning,
 * the current version that also serves Qwen3.5):
 *
 *  1. drop everything up to and including the first "<think>" (if any);
 *  2. "</think>" present: reasoning = text before it, content = text after it
 *     (or None when empty). No whitespace is trimmed: "<think>\nR\n</think>\n\nC"
 *     gives reasoning "\nR\n" and content "\n\nC";
 *  3. no "</think>": thinking disabled -> all content; otherwise a
 *     "<tool_call>" followed (after whitespace) by "<function" ends reasoning
 *     implicitly; else the output was truncated and it is all reasoning.
 *
 * The older parser (vLLM <= 0.11) required both tags and otherwise returned
 * everything as content; `legacy: true` selects it.
 */
export interface ReasoningSplit {
  reasoning: string | null;
  content: string | null;
}

export interface Qwen3ReasoningOptions {
  thinkingEnabled?: boolean;
  legacy?: boolean;
}

const START = '<think>';
const END = '</think>';
const TOOL_CALL = '<tool_call>';
const FUNCTION_OPEN = /^<function[\s=]/;

function partition(s: string, sep: string): [string, string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, '', ''] : [s.slice(0, i), sep, s.slice(i + sep.length)];
}

export function extractQwen3Reasoning(output: string, opts: Qwen3ReasoningOptions = {}): ReasoningSplit {
  if (opts.legacy) {
    if (!output.includes(START) || !output.includes(END)) return { reasoning: null, content: output };
  }
  const [before, sep, after] = partition(output, START);
  const text = sep ? after : before;
  if (text.includes(END)) {
    const [reasoning, , content] = partition(text, END);
    return { reasoning, content: content || null };
  }
  if (opts.legacy) return { reasoning: null, content: text };
  if (opts.thinkingEnabled === false) return { reasoning: null, content: text };
  const tc = text.indexOf(TOOL_CALL);
  if (tc >= 0 && FUNCTION_OPEN.test(text.slice(tc + TOOL_CALL.length).replace(/^\s+/, ''))) {
    return { reasoning: text.slice(0, tc) || null, content: text.slice(tc) || null };
  }
  return { reasoning: text, content: null };
}
