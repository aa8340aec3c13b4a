/** pyJsonDumps / pyFloatRepr / parseJsonLossless against CPython's json module. */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseJsonLossless, type JsonValue, PyFloat } from '../../../src/families/json/json-value.js';
import { pyFloatRepr, pyJsonDumps } from '../../../src/families/json/py-json.js';
import { pythonReference as oracle } from '../../helpers/python-reference.js';
import { seededRandom as rng } from '../../../src/util/seeded-random.js';

const r = rng(7);

function randomDouble(): number {
  const kind = r();
  if (kind < 0.2) return Math.round((r() - 0.5) * 1e6);
  if (kind < 0.4) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
  if (kind < 0.5) return Number((r() * 100).toFixed(Math.floor(r() * 4)));
  const buf = new DataView(new ArrayBuffer(8));
  buf.setUint32(0, Math.floor(r() * 2 ** 32));
  buf.setUint32(4, Math.floor(r() * 2 ** 32));
  const x = buf.getFloat64(0);
  return Number.isFinite(x) ? x : 1.5;
}

function randomString(): string {
  const pools = ['abc', ' \t\n\r', '"\\/', '\u0000\u0001\u001f\u007f', 'é中文🌍𝔘', '\u2028\u2029\ufeff', '<|im_end|>'];
  let s = '';
  const n = Math.floor(r() * 12);
  for (let i = 0; i < n; i++) {
    const pool = [...(pools[Math.floor(r() * pools.length)] ?? 'x')];
    s += pool[Math.floor(r() * pool.length)] ?? '';
  }
  return s;
}

function randomValue(depth: number): JsonValue {
  const k = r();
  if (depth > 3 || k < 0.3) {
    const p = r();
    if (p < 0.15) return null;
    if (p < 0.25) return r() < 0.5;
    if (p < 0.45) return randomDouble();
    if (p < 0.55) return new PyFloat(Math.round((r() - 0.5) * 100));
    return randomString();
  }
  if (k < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(depth + 1));
  const o = new Map<string, JsonValue>();
  for (let i = 0; i < Math.floor(r() * 4); i++) o.set(r() < 0.2 ? String(Math.floor(r() * 20)) : randomString(), randomValue(depth + 1));
  return o;
}

test('pyFloatRepr equals repr(float) for 3000 doubles', () => {
  const xs = Array.from({ length: 3000 }, randomDouble).concat([0, -0, 1e16, 1e15, 1e-4, 1e-5, 123456789012345680000, 5e-324, 1.7976931348623157e308]);
  const py = oracle(
    'float_repr',
    xs.map((x) => (Object.is(x, -0) ? '-0.0' : x.toPrecision(17))),
  );
  xs.forEach((x, i) => assert.deepEqual({ ok: pyFloatRepr(x) }, py[i], `x=${x}`));
});

test('pyJsonDumps equals json.dumps(json.loads(text)) with every option combination', () => {
  const items: { json: string; kwargs: Record<string, unknown> }[] = [];
  const mine: string[] = [];
  for (let i = 0; i < 600; i++) {
    const v = randomValue(0);
    const text = pyJsonDumps(v, { ensureAscii: r() < 0.5 });
    const kwargs = {
      ensure_ascii: r() < 0.5,
      indent: r() < 0.3 ? Math.floor(r() * 4) : r() < 0.1 ? '\t' : null,
      separators: r() < 0.3 ? [',', ':'] : r() < 0.1 ? [' ,', ' = '] : null,
      sort_keys: r() < 0.3,
    };
    items.push({ json: text, kwargs });
    mine.push(
      pyJsonDumps(parseJsonLossless(text), {
        ensureAscii: kwargs.ensure_ascii,
        indent: kwargs.indent,
        separators: kwargs.separators as [string, string] | null,
        sortKeys: kwargs.sort_keys,
      }),
    );
  }
  const py = oracle('dumps', items);
  mine.forEach((m, i) => assert.deepEqual({ ok: m }, py[i], items[i]?.json));
});

test('parseJsonLossless keeps what Python keeps (1.0, big ints, key order, duplicates)', () => {
  const texts = ['{"b": 1.0, "10": 2, "a": [1e400, -0.0, 12345678901234567890123]}', '{"a": 1, "a": 2, "b": 3}', '[NaN, Infinity, -Infinity, 1E5, 0.5e-3]'];
  const py = oracle(
    'dumps',
    texts.map((json) => ({ json, kwargs: {} })),
  );
  texts.forEach((t, i) => assert.deepEqual({ ok: pyJsonDumps(parseJsonLossless(t)) }, py[i]));
  assert.throws(() => parseJsonLossless('{"a": "\u0001"}')); // raw control char: Python strict mode rejects
});
