/**
 * JSON values as Python sees them after `json.loads` (which is what vLLM and
 * transformers hand to a chat template).
 *
 * Plain `JSON.parse` loses three things Python keeps, and each one changes the
 * bytes a template renders:
 *  - float-ness of integral floats: Python `json.loads("1.0")` is the float 1.0
 *    and `json.dumps` writes it back as "1.0"; JS turns it into the number 1.
 *  - integers beyond 2^53: Python keeps them exactly.
 *  - key order: a JS object lists integer-like keys ("0", "12") first.
 *
 * `parseJsonLossless` keeps all three: integral floats become `PyFloat`,
 * big integers `PyInt`, and an object with an integer-like key becomes an
 * insertion-ordered `Map`. Every other value is a plain JS value, so ordinary
 * code can still read messages as plain objects.
 */

/** A Python float whose value JS would otherwise print as an integer. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A Python int outside the range a JS number holds exactly. */
export class PyInt {
  constructor(readonly lexeme: string) {}
}

export type JsonValue = null | boolean | number | string | PyFloat | PyInt | JsonValue[] | JsonMap | { [key: string]: JsonValue };

export type JsonMap = Map<string, JsonValue>;

export type JsonObject = { [key: string]: JsonValue };

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map) && !(v instanceof PyFloat) && !(v instanceof PyInt);
}

/** Entries of an object-like JSON value in Python's (insertion) order. */
export function objectEntries(v: JsonMap | JsonObject): [string, JsonValue][] {
  return v instanceof Map ? [...v.entries()] : Object.entries(v);
}

const INTEGER_LIKE = /^(0|[1-9][0-9]*)$/;

/** Whether JS would reorder this key when it is a property of a plain object. */
export function isIndexLikeKey(key: string): boolean {
  return INTEGER_LIKE.test(key) && Number(key) < 4294967295;
}

export class JsonSyntaxError extends Error {}

/** Parses JSON text the way Python's `json.loads` does (NaN/Infinity accepted). */
export function parseJsonLossless(text: string): JsonValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at char ${i}`);
  };
  const ws = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const literal = (word: string, value: JsonValue): JsonValue => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail('invalid literal');
  };
  const str = (): string => {
    // caller saw the opening quote
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1];
        i += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            fail('bad escape');
        }
        start = i;
        continue;
      }
      if (c < 0x20) fail('control character in string'); // Python's strict=True
      i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
  const num = (): JsonValue => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('invalid number');
    const lexeme = m[0];
    i += lexeme.length;
    if (m[1] !== undefined || m[2] !== undefined) {
      const v = Number(lexeme);
      return Number.isInteger(v) ? new PyFloat(v) : v;
    }
    const v = Number(lexeme);
    if (Number.isSafeInteger(v)) return v === 0 ? 0 : v;
    return new PyInt(BigInt(lexeme).toString());
  };
  const value = (): JsonValue => {
    ws();
    const c = text[i];
    switch (c) {
      case '{': {
        i++;
        const entries: [string, JsonValue][] = [];
        ws();
        if (text[i] === '}') {
          i++;
          return {};
        }
        for (;;) {
          ws();
          if (text[i] !== '"') fail('expected key');
          const k = str();
          ws();
          if (text[i] !== ':') fail('expected colon');
          i++;
          const v = value();
          const existing = entries.findIndex(([ek]) => ek === k);
          if (existing >= 0)
            entries[existing] = [k, v]; // Python: last wins, first position kept
          else entries.push([k, v]);
          ws();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i] === '}') {
            i++;
            break;
          }
          fail('expected , or }');
        }
        if (entries.some(([k]) => isIndexLikeKey(k))) return new Map(entries);
        const obj: JsonObject = {};
        for (const [k, v] of entries) obj[k] = v;
        return obj;
      }
      case '[': {
        i++;
        const arr: JsonValue[] = [];
        ws();
        if (text[i] === ']') {
          i++;
          return arr;
        }
        for (;;) {
          arr.push(value());
          ws();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i] === ']') {
            i++;
            break;
          }
          fail('expected , or ]');
        }
        return arr;
      }
      case '"':
        return str();
      case 't':
        return literal('true', true);
      case 'f':
        return literal('false', false);
      case 'n':
        return literal('null', null);
      case 'N':
        return literal('NaN', NaN);
      case 'I':
        return literal('Infinity', Infinity);
      case '-':
        if (text.startsWith('-Infinity', i)) return literal('-Infinity', -Infinity);
        return num();
      default:
        return num();
    }
  };
  const v = value();
  ws();
  if (i !== text.length) fail('extra data');
  return v;
}
