import { skipSpace } from '../../engine-wire/json-bytes.js';
import { ENGINE_FIELDS } from '../../engine-wire/engine-fields.js';
import { type ClientView } from '../../records/call.js';
import { valueEnd, walkArray, walkObject } from '../upstream/json-members.js';

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
