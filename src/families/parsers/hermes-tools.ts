/**
 * vLLM's `hermes` tool parser, non-streaming path
 * (vllm/tool_parsers/hermes_tool_parser.py, Hermes2ProToolParser.extract_tool_calls):
 *
 *  - no "<tool_call>" in the text: no tools, content unchanged;
 *  - else every match of  <tool_call>(.*?)</tool_call>|<tool_call>(.*)  (DOTALL)
 *    is json.loads-ed; a string "arguments" is json.loads-ed again;
 *    arguments are re-serialised with json.dumps(ensure_ascii=False)
 *    (so ", " and ": " separators, key order kept, 1.0 stays 1.0);
 *  - content = text before the first "<tool_call>", or None when empty
 *    (text between or after tool calls is dropped);
 *  - any failure (bad JSON, missing "name"/"arguments") -> no tools, the whole
 *    text is content.
 */
import { type JsonValue, parseJsonLossless, isPlainObject } from '../json/json-value.js';
import { pyJsonDumps } from '../json/py-json.js';
import type { ParsedToolCall } from '../types.js';

export interface ToolExtraction {
  toolsCalled: boolean;
  toolCalls: ParsedToolCall[];
  content: string | null;
}

export const TOOL_CALL_START = '<tool_call>';
export const TOOL_CALL_END = '</tool_call>';

/** The bodies the regex captures, in order. */
export function hermesToolCallBodies(text: string): string[] {
  const bodies: string[] = [];
  let pos = 0;
  for (;;) {
    const s = text.indexOf(TOOL_CALL_START, pos);
    if (s < 0) break;
    const bodyStart = s + TOOL_CALL_START.length;
    const e = text.indexOf(TOOL_CALL_END, bodyStart);
    if (e < 0) {
      bodies.push(text.slice(bodyStart)); // second alternative: to end of string
      break;
    }
    bodies.push(text.slice(bodyStart, e));
    pos = e + TOOL_CALL_END.length;
  }
  return bodies;
}

/** Python dict lookup on a parsed JSON object; throws like a KeyError/TypeError would. */
function getKey(obj: JsonValue, key: string): JsonValue {
  if (obj instanceof Map) {
    if (!obj.has(key)) throw new Error(`KeyError: ${key}`);
    return obj.get(key) as JsonValue;
  }
  if (isPlainObject(obj)) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) throw new Error(`KeyError: ${key}`);
    return obj[key] as JsonValue;
  }
  throw new Error('TypeError: not subscriptable by str');
}

export function extractHermesToolCalls(text: string): ToolExtraction {
  if (!text.includes(TOOL_CALL_START)) return { toolsCalled: false, toolCalls: [], content: text };
  try {
    const calls = hermesToolCallBodies(text).map((body) => {
      const fc = parseJsonLossless(body);
      let args = getKey(fc, 'arguments');
      if (typeof args === 'string') args = parseJsonLossless(args);
      const name = getKey(fc, 'name');
      if (typeof name !== 'string') throw new Error('pydantic: name must be a string');
      return { name, arguments: pyJsonDumps(args, { ensureAscii: false }) };
    });
    const content = text.slice(0, text.indexOf(TOOL_CALL_START));
    return { toolsCalled: true, toolCalls: calls, content: content || null };
  } catch {
    return { toolsCalled: false, toolCalls: [], content: text };
  }
}
