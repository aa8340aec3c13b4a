/** ChatTemplate (@huggingface/jinja + transformers semantics) against Python jinja2 set up like transformers. */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { ChatTemplate, pyStrip, strftime } from '../../../src/families/template/chat-template.js';
import { parseJsonLossless } from '../../../src/families/json/json-value.js';
import { pythonReference as oracle } from '../../helpers/python-reference.js';
import { seededRandom as rng } from '../../../src/util/seeded-random.js';

const r = rng(11);
const FIXED = new Date(2025, 0, 15, 9, 30, 0);

function js(template: string, contextJson: string): { ok: string } | { error: string } {
  try {
    const t = new ChatTemplate(template, { strftimeNow: (f) => strftime(FIXED, f) });
    return { ok: t.render(parseJsonLossless(contextJson) as Record<string, never>) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

test('str.strip/lstrip/rstrip with and without chars match Python', () => {
  const alphabet = [' ', '\n', '\t', 'a', 'b', '\x1c', '\x85', '\ufeff', '\u3000', '🌍', 'x'];
  const items = Array.from({ length: 800 }, () => ({
    s: Array.from({ length: Math.floor(r() * 8) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''),
    mode: ['strip', 'lstrip', 'rstrip'][Math.floor(r() * 3)] as 'strip',
    chars: r() < 0.4 ? null : (['\n', ' \n', 'ab', '🌍x'][Math.floor(r() * 4)] ?? null),
  }));
  const py = oracle('strip', items);
  items.forEach((it, i) => assert.deepEqual({ ok: pyStrip(it.s, it.mode, it.chars) }, py[i], JSON.stringify(it)));
});

test('templates exercising tojson options, strip, str concatenation, undefined access and loop controls match jinja2', () => {
  const templates = [
    '{{ x | tojson }}',
    '{{ x | tojson(indent=2) }}',
    '{{ x | tojson(sort_keys=true) }}',
    '{{ x | tojson(ensure_ascii=true) }}',
    '{{ x | tojson(separators=(",", ":")) }}',
    '{{ s.strip("\\n") }}|{{ s.lstrip() }}|{{ s.rstrip(" x") }}',
    '{{ "a" + s }}',
    '{{ "a" + n }}',
    '{{ missing.attr }}',
    '{{ (x is mapping) }}-{{ x is string }}',
    '{% for i in range(5) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}',
    '{{ strftime_now("%Y-%m-%d %H:%M %b %B") }}',
    '{%- if n is defined and n is number %}{{ n }}{% endif %}',
    '{{ s.split("</think>")[-1].lstrip("\\n") }}',
    '{{ raise_exception("boom") }}',
    '{{ x }}',
    '{{ n > 1 }}|{{ none }}|{{ [1, "a\'b", none, true, 2.0] }}|{{ s }}',
    '{{ x.b if x is mapping else x }}',
  ];
  const values = ['{"b": 1.0, "a": [1, 2.5, {"10": null, "z": "中文"}], "big": 123456789012345678901}', '"plain 🌍"', '[]', '{}', '3.0', '-0.0'];
  const strings = ['\n\n  x y \n', ' <think>\nr\n</think>\n\n a ', '', 'x'];
  const items: { template: string; context_json: string }[] = [];
  for (const template of templates) {
    for (let k = 0; k < 4; k++) {
      const x = values[Math.floor(r() * values.length)];
      const s = JSON.stringify(strings[Math.floor(r() * strings.length)]);
      items.push({ template, context_json: `{"x": ${x}, "s": ${s}, "n": ${k}}` });
    }
  }
  const py = oracle('render', items);
  items.forEach((it, i) => {
    const mine = js(it.template, it.context_json);
    const ref = py[i];
    if (ref && 'error' in ref) assert.ok('error' in mine, `${it.template} ${it.context_json}: python raised ${ref.error}, js gave ${JSON.stringify(mine)}`);
    else assert.deepEqual(mine, ref, `${it.template} ${it.context_json}`);
  });
});
