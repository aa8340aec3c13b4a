/**
 * A streaming parser built from a non-streaming one: after each pushed chunk
 * it re-parses the text seen so far *minus a held-back tail* that could still
 * turn into a marker (a prefix of "</think>", "<tool_call>", ...), and emits
 * only what extends what was already emitted. Tool calls are emitted whole
 * (name + complete arguments) once they are closed.
 *
 * Invariant (tested): concatenating all deltas gives exactly the
 * non-streaming parse of the full text, whenever the full parse does not
 * retract earlier output (the only case: a later malformed tool call makes
 * vLLM's non-streaming hermes parser give up on all calls).
 */
import type { CompletionStreamParser } from '../family.js';
import type { ParsedCompletion, StreamDelta } from '../types.js';

export interface IncrementalSpec {
  /** Full parse of a finished completion. */
  parseFinal(text: string): ParsedCompletion;
  /** Parse of an unfinished completion: only tool calls that are closed, only text that is settled. */
  parsePartial(text: string): ParsedCompletion;
  /** Markers whose partial prefix at the end of the text must be held back. */
  markers: readonly string[];
}

/** Length of the longest suffix of `text` that is a proper prefix of some marker. */
export function heldBackLength(text: string, markers: readonly string[]): number {
  let best = 0;
  for (const m of markers) {
    for (let k = Math.min(m.length - 1, text.length); k > best; k--) {
      if (text.endsWith(m.slice(0, k))) {
        best = k;
        break;
      }
    }
  }
  return best;
}

export function createIncrementalParser(spec: IncrementalSpec): CompletionStreamParser {
  let text = '';
  let sentReasoning = '';
  let sentContent = '';
  let sentTools = 0;

  const diff = (p: ParsedCompletion): StreamDelta[] => {
    const out: StreamDelta[] = [];
    const r = p.reasoning_content ?? '';
    if (r.length > sentReasoning.length && r.startsWith(sentReasoning)) {
      out.push({ reasoning_content: r.slice(sentReasoning.length) });
      sentReasoning = r;
    }
    const c = p.content ?? '';
    if (c.length > sentContent.length && c.startsWith(sentContent)) {
      out.push({ content: c.slice(sentContent.length) });
      sentContent = c;
    }
    for (; sentTools < p.tool_calls.length; sentTools++) {
      const tc = p.tool_calls[sentTools];
      if (tc) out.push({ tool_calls: [{ index: sentTools, name: tc.name, arguments: tc.arguments }] });
    }
    return out;
  };

  return {
    push(chunk: string): StreamDelta[] {
      text += chunk;
      const hold = heldBackLength(text, spec.markers);
      return diff(spec.parsePartial(text.slice(0, text.length - hold)));
    },
    finish(): StreamDelta[] {
      return diff(spec.parseFinal(text));
    },
  };
}
