/**
 * What vLLM does to an OpenAI request before the chat template sees it
 * (vllm/entrypoints/chat_utils.py: _parse_chat_message_content,
 * _postprocess_messages; serving: `[tool.model_dump() for tool in request.tools]`).
 *
 *  - content: null -> "", a list of text parts -> the texts joined by "\n";
 *  - assistant `reasoning` -> both `reasoning` and `reasoning_content`;
 *    a client's own `reasoning_content` key is not read;
 *  - tool_calls: [] is dropped; each `function.arguments` JSON string is
 *    json.loads-ed into an object (empty/absent -> {});
 *  - tool: `tool_call_id` kept; `name` kept for any role when it is a string;
 *  - tools: pydantic model_dump order: type, function{name, description,
 *    parameters, ...extra keys}, with description/parameters null when absent.
 */
import { type JsonValue, type JsonObject, parseJsonLossless } from '../json/json-value.js';
import type { ChatMessage, ToolSpec } from '../types.js';

export interface IngestOptions {
  /**
   * Also read a client's `reasoning_content` key (older vLLM builds and some
   * forks do; current vLLM main reads only `reasoning`). Default false.
   */
  acceptReasoningContentKey?: boolean;
}

function flattenContent(content: ChatMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text' && p.text)
    .map((p) => p.text)
    .join('\n');
}

function parseArguments(args: unknown): JsonValue {
  if (args === undefined || args === null || args === '') return {};
  if (typeof args === 'string') return parseJsonLossless(args);
  return args as JsonValue;
}

export function ingestMessages(messages: readonly ChatMessage[], opts: IngestOptions = {}): JsonObject[] {
  return messages.map((m) => {
    const out: JsonObject = { role: m.role, content: flattenContent(m.content) };
    if (m.role === 'assistant') {
      if (m.tool_calls !== undefined && m.tool_calls !== null) {
        if (m.tool_calls.length > 0) {
          out['tool_calls'] = m.tool_calls.map((tc) => {
            const call: JsonObject = {};
            for (const [k, v] of Object.entries(tc)) {
              if (k !== 'function') call[k] = v as JsonValue;
            }
            const fn: JsonObject = {};
            for (const [k, v] of Object.entries(tc.function)) fn[k] = v as JsonValue;
            fn['arguments'] = parseArguments(tc.function.arguments);
            // keep the client's key order for the call object, with function where it was
            const ordered: JsonObject = {};
            for (const k of Object.keys(tc)) ordered[k] = k === 'function' ? fn : (call[k] ?? null);
            return ordered;
          });
        }
      }
      const reasoning = m.reasoning ?? (opts.acceptReasoningContentKey ? m.reasoning_content : undefined);
      if (reasoning !== undefined && reasoning !== null) {
        out['reasoning'] = reasoning;
        out['reasoning_content'] = reasoning;
      }
    } else if (m.role === 'tool') {
      if (m.tool_call_id !== undefined) out['tool_call_id'] = m.tool_call_id;
    }
    if (typeof m.name === 'string') out['name'] = m.name;
    return out;
  });
}

export function ingestTools(tools: readonly ToolSpec[] | null | undefined): JsonObject[] | null {
  if (!tools || tools.length === 0) return null;
  return tools.map((t) => {
    const f = t.function;
    const fn: JsonObject = {
      name: f.name,
      description: f.description ?? null,
      parameters: (f.parameters ?? null) as JsonValue,
    };
    for (const [k, v] of Object.entries(f)) {
      if (!(k in fn) && v !== undefined) fn[k] = v;
    }
    const out: JsonObject = { type: t.type ?? 'function', function: fn };
    for (const [k, v] of Object.entries(t)) {
      if (!(k in out) && v !== undefined) out[k] = v as JsonValue;
    }
    return out;
  });
}
