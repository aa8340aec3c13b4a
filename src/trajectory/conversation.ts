import { protocolRecords } from '../proxy/protocols/registry.js';
import type { ProtocolName } from '../records/call.js';
import { isRecord } from '../util/is-record.js';

/**
 * Messages of a recorded request or answer reduced to comparable keys, whatever the wire protocol.
 * Two messages get the same key when they render the same conversation: ids the harness may
 * regenerate (tool call ids, cache hints) and empty fields (`content: null` vs `''`, `tool_calls: []`)
 * are dropped, and content made only of text parts compares equal to the same text as a string.
 */

const VOLATILE_FIELDS = new Set(['id', 'tool_call_id', 'call_id', 'tool_use_id', 'cache_control', 'refusal', 'annotations', 'status']);

/** The request's conversation, read by its protocol (chat `messages`, Anthropic `system` + `messages`, Responses `instructions` + `input`). */
export function requestMessages(request: unknown, protocol: ProtocolName): unknown[] {
  return protocolRecords(protocol).requestMessages(request);
}

/** The messages a harness appends to its history for this answer. Empty when the call failed. */
export function answerMessages(response: unknown, protocol: ProtocolName): unknown[] {
  return protocolRecords(protocol).answerMessages(response);
}

export function messageKey(message: unknown): string {
  return JSON.stringify(normalize(message)) ?? 'null';
}

/** Length of the longest common prefix of two key lists. */
export function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) {
    if (
      value.length > 0 &&
      value.every((p) => isRecord(p) && (p.type === 'text' || p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string')
    ) {
      return value.map((p) => (p as { text: string }).text).join('');
    }
    return value.map(normalize);
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    if (VOLATILE_FIELDS.has(key) || v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[key] = normalize(v);
  }
  if (out.role === 'developer') out.role = 'system';
  return out;
}
