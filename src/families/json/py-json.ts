/**
 * Python's `json.dumps`, byte for byte, over `JsonValue`s.
 *
 * Used wherever the reference stack serialises with Python: transformers'
 * `tojson` filter (`json.dumps(x, ensure_ascii=False, indent, separators,
 * sort_keys)`), vLLM's hermes tool parser (`json.dumps(args,
 * ensure_ascii=False)`) and its gpt-oss tool parser (`json.dumps(json.loads(s))`,
 * ensure_ascii=True).
 */
import { type JsonValue, PyFloat, PyInt, objectEntries, isPlainObject } from './json-value.js';

export interface DumpsOptions {
  ensureAscii?: boolean;
  /** Python's `indent`: a count of spaces or the indent string itself. */
  indent?: number | string | null;
  /** Python's `separators=(item, key)`. */
  separators?: readonly [string, string] | null;
  sortKeys?: boolean;
}

/** `repr(float)` in CPython: shortest round-trip digits, exponent outside 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant = '', expPart = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mant.replace('.', '');
  const decpt = Number(expPart) + 1; // value = 0.DIGITS * 10^decpt
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const e = decpt - 1;
  const rest = digits.slice(1);
  const expStr = `${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return `${sign}${digits[0]}${rest ? '.' + rest : ''}e${expStr}`;
}

const NAMED_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

const hex4 = (code: number): string => '\\u' + code.toString(16).padStart(4, '0');

/** `json.encoder.py_encode_basestring(_ascii)`. */
export function pyJsonString(s: string, ensureAscii: boolean): string {
  // eslint-disable-next-line no-control-regex -- JSON escapes the control characters U+0000 to U+001F
  const re = ensureAscii ? /[\\"]|[^ -~]/g : /[\x00-\x1f\\"]/g;
  return (
    '"' +
    s.replace(re, (ch) => {
      const named = NAMED_ESCAPES[ch];
      if (named !== undefined) return named;
      return hex4(ch.charCodeAt(0)); // non-BMP chars are two UTF-16 units, each escaped: Python does the same
    }) +
    '"'
  );
}

/** Python compares str keys by code point; JS's default sort compares UTF-16 units. */
function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}

export function pyJsonDumps(value: JsonValue, opts: DumpsOptions = {}): string {
  const ensureAscii = opts.ensureAscii ?? true;
  const indent = typeof opts.indent === 'number' ? ' '.repeat(opts.indent) : (opts.indent ?? null);
  const [itemSep, keySep] = opts.separators ?? (indent !== null ? [',', ': '] : [', ', ': ']);
  const sortKeys = opts.sortKeys ?? false;

  const enc = (v: JsonValue, level: number): string => {
    if (v === null) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return pyJsonString(v, ensureAscii);
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
    if (v instanceof PyFloat) return pyFloatRepr(v.value);
    if (v instanceof PyInt) return v.lexeme;
    const open = (items: string[], l: string, r: string): string => {
      if (items.length === 0) return l + r;
      if (indent === null) return l + items.join(itemSep) + r;
      const inner = '\n' + indent.repeat(level + 1);
      return l + inner + items.join(itemSep + inner) + '\n' + indent.repeat(level) + r;
    };
    if (Array.isArray(v))
      return open(
        v.map((x) => enc(x, level + 1)),
        '[',
        ']',
      );
    if (v instanceof Map || isPlainObject(v)) {
      let entries = objectEntries(v);
      if (sortKeys) entries = [...entries].sort(([a], [b]) => compareCodePoints(a, b));
      return open(
        entries.map(([k, x]) => pyJsonString(k, ensureAscii) + keySep + enc(x, level + 1)),
        '{',
        '}',
      );
    }
    throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
  };
  return enc(value, 0);
}
