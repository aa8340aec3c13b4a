import type { ChatBody } from '../engine-wire/chat-wire.js';
import { skipSpace } from '../engine-wire/json-bytes.js';
import { valueEnd, walkArray, walkObject } from './upstream/json-members.js';

/** Fields vLLM adds for token capture that no OpenAI client expects. */
const ENGINE_FIELDS: ReadonlySet<string> = new Set(['prompt_token_ids', 'token_ids', 'prompt_logprobs', 'kv_transfer_params', 'stop_reason']);

export interface ClientView {
  /** The harness asked for logprobs itself. */
  logprobs: boolean;
}

/** Removes engine fields (and logprobs the harness did not ask for) in place, top level and per choice. */
export function stripEngineFields(body: ChatBody, view: ClientView): ChatBody {
  // `in` first: deleting a member an object lacks still calls into V8's runtime, for every field of every event
  for (const field of ENGINE_FIELDS) if (field in body) delete body[field];
  if (Array.isArray(body.choices)) {
    for (const choice of body.choices) {
      if (typeof choice !== 'object' || choice === null) continue;
      for (const field of ENGINE_FIELDS) if (field in choice) delete choice[field];
      // null, not absent: what an OpenAI server sends when logprobs were not requested
      if (!view.logprobs && 'logprobs' in choice) choice.logprobs = null;
    }
  }
  return body;
}

const OPEN_BRACE = Buffer.from('{');
const CLOSE_BRACE = Buffer.from('}');
const OPEN_BRACKET = Buffer.from('[');
const CLOSE_BRACKET = Buffer.from(']');
const COMMA = Buffer.from(',');
const NULL = Buffer.from('null');

/** Writes a member itself and returns one past its value, or returns undefined to leave it to the usual rule. */
type MemberWriter = (key: string, start: number, valueStart: number) => number | undefined;

/**
 * What `stripEngineFields` leaves of a whole answer, cut from the answer's bytes instead of parsed
 * and written again: what is kept is copied as it came, so the harness gets the upstream's own text
 * of it. One pass: the id lists and the logprobs are skipped, not read. Undefined when the bytes
 * are not one JSON object as the scan reads them (then parse and strip). The scan checks the
 * answer's structure, not every string and number in it: what it lets through, whoever reads the
 * record's tokens from the same bytes finds.
 */
export function withoutEngineFields(bytes: Buffer, view: ClientView): Buffer | undefined {
  const out: Buffer[] = [];
  const end = cutObject(bytes, skipSpace(bytes, 0), out, (key, start, valueStart) =>
    key === 'choices' && bytes[valueStart] === OPEN_BRACKET[0] ? cutChoices(bytes, start, valueStart, view, out) : undefined,
  );
  if (end < 0 || skipSpace(bytes, end) !== bytes.length) return undefined;
  return Buffer.concat(out);
}

/** Writes the object opening at `open` to `out` without engine fields; one past the object, or -1. */
function cutObject(bytes: Buffer, open: number, out: Buffer[], special: MemberWriter): number {
  out.push(OPEN_BRACE);
  let first = true;
  const end = walkObject(bytes, open, (key, start, valueStart) => {
    if (ENGINE_FIELDS.has(key)) return valueEnd(bytes, valueStart);
    if (!first) out.push(COMMA);
    first = false;
    const written = special(key, start, valueStart);
    if (written !== undefined) return written;
    const end = valueEnd(bytes, valueStart);
    out.push(bytes.subarray(start, Math.max(start, end)));
    return end;
  });
  out.push(CLOSE_BRACE);
  return end;
}

/** Writes `"choices": [...]` with each choice object cut as `stripEngineFields` strips it; one past the list, or -1. */
function cutChoices(bytes: Buffer, start: number, valueStart: number, view: ClientView, out: Buffer[]): number {
  out.push(bytes.subarray(start, valueStart), OPEN_BRACKET);
  const logprobsAsNull: MemberWriter = (key, keyStart, logprobsStart) => {
    if (view.logprobs || key !== 'logprobs') return undefined;
    // null, not absent: what an OpenAI server sends when logprobs were not requested
    out.push(bytes.subarray(keyStart, logprobsStart), NULL);
    return valueEnd(bytes, logprobsStart);
  };
  let first = true;
  const end = walkArray(bytes, valueStart, (item) => {
    if (!first) out.push(COMMA);
    first = false;
    if (bytes[item] === OPEN_BRACE[0]) return cutObject(bytes, item, out, logprobsAsNull);
    const end = valueEnd(bytes, item);
    out.push(bytes.subarray(item, Math.max(item, end)));
    return end;
  });
  out.push(CLOSE_BRACKET);
  return end;
}
