import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/proxy/http/json-depth.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('nestsDeeperThan', () => {
  it('measures nesting of arrays and objects, not of scalars', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(nested(200_000)), MAX_JSON_DEPTH)).toBe(true);
    // the deep part last among siblings, or under a key JSON.parse keeps as an own property
    expect(nestsDeeperThan(JSON.parse(`{"a": [1, 2, {"b": "c"}], "z": [[], ${nested(300)}]}`), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(`{"__proto__": ${nested(300)}}`), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(`{"a": ${nested(250)}}`), MAX_JSON_DEPTH)).toBe(false);
  });
});

describe('deeply nested bodies', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.close();
  });

  it('are refused with a 400 before any handler, and the proxy keeps serving', async () => {
    fx = await startFixture();
    const session = fx.session();
    const post = (body: string) =>
      fetch(`${fx.proxy.url}/s/${session.secret}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const deep = `{"model":"policy","messages":[{"role":"user","content":"hi","extra":${nested(50_000)}}]}`;
    const res = await post(deep);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('json_too_deep');
    // as deep as a real tool schema is fine
    expect((await post(JSON.stringify({ model: 'policy', messages: USER_MESSAGES, metadata: JSON.parse(nested(40)) }))).status).toBe(200);
    const calls = await fx.sink.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // the refused body was not recorded (like malformed JSON) and never reached the upstream
    expect(calls.map((c) => [c.seq, c.status])).toEqual([[1, 200]]);
    expect(fx.fake.requests).toHaveLength(1);
  });
});
