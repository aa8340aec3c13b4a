import { describe, expect, it } from 'vitest';
import { topLevelMembers, withTopLevelFields } from '../../../src/proxy/upstream/json-members.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

/** Writes `value` as JSON with random whitespace between tokens and random escapes in strings. */
function writeLoosely(value: unknown, random: () => number): string {
  const space = () => [' ', '\n', '\t', '\r\n  ', ''][Math.floor(random() * 5)] as string;
  const text = (s: string) =>
    JSON.stringify(s).replace(/\\u[0-9a-f]{4}|\\.|[a-z]/g, (c) =>
      c.length === 1 && random() < 0.1 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c,
    );
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return `[${space()}${value.map((v) => writeLoosely(v, random)).join(`${space()},${space()}`)}${space()}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${space()}${text(k)}${space()}:${space()}${writeLoosely(v, random)}${space()}`);
    return `{${members.join(',')}${members.length ? '' : space()}}`;
  }
  return JSON.stringify(value);
}

const AWKWARD_STRINGS = [
  '',
  'plain',
  'a "quoted" word',
  'back\\slash\\',
  '}]{[,:',
  'é ü 日本 🚀',
  'line\nbreak\ttab',
  '\\"',
  'x\\\\',
  // longer than the stretch read byte by byte (64 bytes), escapes on either side of its end
  `${'a'.repeat(61)}"${'b'.repeat(9)}`,
  `${'c'.repeat(62)}\\${'d'.repeat(5)}"`,
  `${'e'.repeat(200)}"}]`,
];

function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth > 3 || pick < 0.3) return AWKWARD_STRINGS[Math.floor(random() * AWKWARD_STRINGS.length)];
  if (pick < 0.45) return Math.round(random() * 1e6) / 100 - 5000;
  if (pick < 0.55) return [true, false, null][Math.floor(random() * 3)];
  if (pick < 0.75) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}${AWKWARD_STRINGS[i % 5]}`, randomValue(random, depth + 1)]));
}

function splice(text: string, set: Record<string, unknown>): unknown {
  const bytes = Buffer.from(text);
  const members = topLevelMembers(bytes);
  if (!members) throw new Error(`not an object: ${text}`);
  return JSON.parse(Buffer.concat(withTopLevelFields(bytes, members, set)).toString('utf8'));
}

describe('a JSON object rewritten at its top level, the rest passed through as bytes', () => {
  it('means the same as the parsed object with the fields set, for a thousand random objects', () => {
    const random = seededRandom(7);
    const keys = ['model', 'messages', 'temperature', 'stream', 'é"key', 'tools', 'max_tokens'];
    for (let n = 0; n < 1000; n++) {
      const original = Object.fromEntries(keys.filter(() => random() < 0.6).map((k) => [k, randomValue(random, 0)]));
      const set = Object.fromEntries(keys.filter(() => random() < 0.3).map((k) => [k, randomValue(random, 2)]));
      const text = writeLoosely(original, random);
      expect(JSON.parse(text)).toEqual(original);
      expect(splice(text, set)).toEqual({ ...original, ...set });
    }
  });

  it('finds each member once, with escaped keys read as JSON reads them', () => {
    const text = ' { "mod\\u0065l" : "a" , "messages":[{"content":"}\\"{"}],"n":-1.5e3,"x":null,"y":true}\n';
    const members = topLevelMembers(Buffer.from(text));
    expect(members?.map((m) => m.key)).toEqual(['model', 'messages', 'n', 'x', 'y']);
    expect(members?.map((m) => text.slice(m.start, m.end))).toEqual([
      '"mod\\u0065l" : "a"',
      '"messages":[{"content":"}\\"{"}]',
      '"n":-1.5e3',
      '"x":null',
      '"y":true',
    ]);
  });

  it('ends each string at its closing quote, whether it closes within 64 bytes or later', () => {
    for (let length = 55; length < 75; length++) {
      for (const escape of ['', '\\"', '\\\\', '\\u0022']) {
        for (const at of [0, 30, 60, 62, 63, 64, 65, 70]) {
          const chars = 'x'.repeat(length);
          const raw = `${chars.slice(0, at)}${escape}${chars.slice(at)}`;
          const text = `{"s":"${raw}","t":["${raw}",{"u":"${raw}"}],"v":1}`;
          const members = topLevelMembers(Buffer.from(text));
          expect(
            members?.map((m) => text.slice(m.start, m.end)),
            text,
          ).toEqual([`"s":"${raw}"`, `"t":["${raw}",{"u":"${raw}"}]`, '"v":1']);
        }
      }
    }
  });

  it('replaces every copy of a duplicated key and drops a field set to undefined', () => {
    expect(splice('{"temperature":0,"a":1,"temperature":2}', { temperature: 0.7 })).toEqual({ temperature: 0.7, a: 1 });
    expect(splice('{"a":1,"b":2}', { b: undefined })).toEqual({ a: 1 });
    expect(splice('{}', { a: 1 })).toEqual({ a: 1 });
    expect(splice('{"a":[1]}', {})).toEqual({ a: [1] });
  });

  it('passes kept members as slices of the original bytes, not copies', () => {
    const bytes = Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[]}');
    const pieces = withTopLevelFields(bytes, topLevelMembers(bytes) ?? [], { model: 'policy' });
    const slice = pieces.find((p) => p.toString().startsWith('"messages"'));
    expect(slice?.toString()).toBe('"messages":[{"role":"user","content":"hi"}],"tools":[]');
    expect(slice?.buffer).toBe(bytes.buffer);
  });

  it('gives up on anything that is not one whole JSON object', () => {
    const whole = '{"a":"x\\"y","b":[1,{"c":2}],"d":3}';
    for (let cut = 0; cut < whole.length; cut++) expect(topLevelMembers(Buffer.from(whole.slice(0, cut)))).toBeUndefined();
    for (const text of [
      '[1,2]',
      '"text"',
      '42',
      '{"a":1}{"b":2}',
      '{"a" 1}',
      '{a:1}',
      '{"a":1,}',
      '{"a":}',
      '{"a":tru}',
      '{"a":nul}',
      '{"a":1x}',
      '{"a":x1}',
      '{"a":[1,2}',
      '{"a":[1,2,]',
    ]) {
      expect(topLevelMembers(Buffer.from(text)), text).toBeUndefined();
    }
  });
});
