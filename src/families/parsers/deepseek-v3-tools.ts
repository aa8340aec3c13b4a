import type { ParsedToolCall } from '../types.js';

export const TOOL_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
export const TOOL_CALLS_END = '<｜tool▁calls▁end｜>';
export const TOOL_CALL_BEGIN = '<｜tool▁call▁begin｜>';
export const TOOL_CALL_END = '<｜tool▁call▁end｜>';
export const TOOL_SEP = '<｜tool▁sep｜>';

// vLLM's pattern without DOTALL; Python's `.` is any character but "\n" (JS's also stops at "\r", U+2028, U+2029)
const TOOL_CALL = new RegExp(`${TOOL_CALL_BEGIN}([^\\n]*)${TOOL_SEP}([^\\n]*)\\n\`\`\`json\\n([^\\n]*)\\n\`\`\`${TOOL_CALL_END}`, 'g');

export interface DeepSeekToolExtraction {
  toolsCalled: boolean;
  toolCalls: ParsedToolCall[];
  content: string | null;
}

/**
 * vLLM's `deepseek_v3` tool parser, non-streaming (`DeepSeekV3ToolParser.extract_tool_calls`): with
 * the tool-calls marker in the text, every complete call the pattern finds is a tool call with its
 * arguments as written (not re-serialised), and the content is the text before the marker.
 */
export function extractDeepSeekToolCalls(text: string): DeepSeekToolExtraction {
  const begin = text.indexOf(TOOL_CALLS_BEGIN);
  if (begin < 0) return { toolsCalled: false, toolCalls: [], content: text };
  const toolCalls = [...text.matchAll(TOOL_CALL)].map((match) => ({ name: match[2] ?? '', arguments: match[3] ?? '' }));
  const content = text.slice(0, begin);
  return { toolsCalled: true, toolCalls, content: content || null };
}
