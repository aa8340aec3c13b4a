import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../../src/proxy/protocols/chat/request-schema.js';

describe('the chat request check', () => {
  it("accepts members it does not know at every level and hands back the harness's own object, all of it", () => {
    const body = {
      model: 'policy',
      messages: [{ role: 'user', content: 'hi', name: 'dev', cache_control: { type: 'ephemeral' } }],
      tools: [{ type: 'function', function: { name: 'bash', parameters: {} }, strict: true }],
      stream: true,
      stream_options: { include_usage: false, continuous_usage_stats: true },
      chat_template_kwargs: { enable_thinking: false },
      top_k: 20,
    };
    const copy = structuredClone(body);
    const request = parseChatRequest(body);
    expect(request).toBe(body);
    expect(request).toEqual(copy);
  });

  it('names each wrong field in one 400', () => {
    const check = () => parseChatRequest({ model: '', messages: [{ content: 'no role' }], stream_options: { include_usage: 'yes' }, n: 2 });
    expect(check).toThrow(/model: .*; messages\.0\.role: .*; stream_options\.include_usage: .*; n: the recording proxy serves one choice per call/);
    expect(() => parseChatRequest({ model: 'p', messages: [] })).toThrow(/messages: /);
  });
});
