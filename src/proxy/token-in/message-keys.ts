import { parseJsonLossless, type JsonValue } from '../../families/json/json-value.js';
import { isRecord } from '../../util/is-record.js';

/**
 * Messages reduced to what they mean to the model, so that the history a harness sends back can be
 * compared with the one the proxy served: roles (developer as system), the text of the content trimmed
 * (a harness may send back `null`, `""` or vLLM's `"\n\n"`), tool calls by name and arguments as JSON
 * values (spacing, key order and escapes aside). Ids, reasoning a harness drops, and names are left out:
 * the token history keeps what the model sampled, whatever the harness echoes of it.
 */
export function messageKey(message: unknown): string {
  if (!isRecord(message)) return JSON.stringify(message) ?? 'null';
  const role = message.role === 'developer' ? 'system' : message.role;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(callKey) : [];
  return JSON.stringify([role, contentText(message.content).trim(), calls]);
}

/** An answer as parsed from the completion: the assistant message the harness should send back. */
export function answerKey(answer: { content: string | null; tool_calls: { name: string; arguments: string }[] }): string {
  return JSON.stringify(['assistant', (answer.content ?? '').trim(), answer.tool_calls.map((c) => [c.name, canonicalJson(c.arguments)])]);
}

function callKey(call: unknown): unknown {
  const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
  return [fn.name ?? null, typeof fn.arguments === 'string' ? canonicalJson(fn.arguments) : sortedKeys(fn.arguments ?? {})];
}

/** Text parts joined as vLLM joins them; other parts (images) count by their type. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : isRecord(part) ? `[${String(part.type)}]` : '')).join('\n');
}

function canonicalJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return sortedKeys(parseJsonLossless(text));
  } catch {
    return text;
  }
}

function sortedKeys(value: JsonValue | unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value instanceof Map) return sortedKeys(Object.fromEntries(value));
  if (!isRecord(value)) return typeof value === 'object' && value !== null && 'value' in value ? (value as { value: unknown }).value : value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}
