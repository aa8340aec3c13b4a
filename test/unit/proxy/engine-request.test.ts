import { describe, expect, it } from 'vitest';
import type { ChatRequestBody } from '../../../src/engine-wire/chat-wire.js';
import { upstreamBody, upstreamBodyBytes } from '../../../src/proxy/upstream/engine-request.js';
import { engineRequest } from '../../../src/proxy/token-in/engine-request.js';
import type { ForcedSampling } from '../../../src/proxy/types.js';
import { forcedSampling } from '../../../src/rollout/model-endpoint.js';

/** The upstream body the proxy sends for a harness's bytes, as text, and the pieces it was sent in. */
function sent(text: string, sampling?: ForcedSampling) {
  const source = Buffer.from(text);
  const request = JSON.parse(text) as ChatRequestBody;
  const pieces = upstreamBodyBytes(request, source, 'vllm', sampling);
  if (!pieces) throw new Error(`no bytes for ${text}`);
  return { text: Buffer.concat(pieces).toString('utf8'), pieces, source, request };
}

describe('the upstream request built from the harness bytes', () => {
  it('puts token capture in front and passes the harness members through as slices of its own bytes', () => {
    const text = ' {"model":"policy", "seed": 18446744073709551615,\n "messages":[{"role":"user","content":"say \\"hi\\" \\u00e9"}]} ';
    const { text: body, pieces, source, request } = sent(text);
    expect(JSON.parse(body)).toEqual(upstreamBody(request, 'vllm', undefined));
    expect(body).toContain('"seed": 18446744073709551615'); // digits past 2^53 reach the engine as written
    expect(body.startsWith('{"return_token_ids":true,"logprobs":true,')).toBe(true);
    // the harness's members are a view into its own bytes, not a copy
    const members = pieces.find((piece) => piece.toString().includes('"messages"'));
    expect(members?.buffer).toBe(source.buffer);
    expect(members?.byteOffset).toBeGreaterThan(source.byteOffset);
    expect((members?.byteOffset ?? 0) + (members?.length ?? 0)).toBeLessThanOrEqual(source.byteOffset + source.length);
  });

  it('replaces the fields it sets, every copy of them, when the harness sent them too', () => {
    const text = '{"model":"policy","logprobs":false,"max_tokens":9000,"messages":[{"role":"user","content":"hi"}],"logprobs":false}';
    const { text: body } = sent(text, { maxTokens: 512 });
    expect(JSON.parse(body)).toEqual({ model: 'policy', messages: [{ role: 'user', content: 'hi' }], logprobs: true, return_token_ids: true, max_tokens: 512 });
    expect(body.match(/"logprobs"/g)).toHaveLength(1);
  });

  it('leaves a field alone that the harness set to what the proxy would', () => {
    const { text: body } = sent('{"model":"policy","logprobs":true,"messages":[{"role":"user","content":"hi"}]}');
    expect(body.match(/"logprobs"/g)).toHaveLength(1);
    expect(JSON.parse(body)).toMatchObject({ logprobs: true, return_token_ids: true });
  });

  it('drops a member the request it was given lacks, should the two ever disagree', () => {
    // a request that lost `return_token_ids` on its way: the harness's `false` must not reach the engine
    const source = Buffer.from('{"model":"policy","return_token_ids":false,"messages":[{"role":"user","content":"hi"}]}');
    const request = { model: 'policy', messages: [{ role: 'user', content: 'hi' }] } as ChatRequestBody;
    const body = JSON.parse(Buffer.concat(upstreamBodyBytes(request, source, 'vllm', undefined) ?? []).toString('utf8'));
    expect(body).toEqual({ model: 'policy', messages: [{ role: 'user', content: 'hi' }], logprobs: true, return_token_ids: true });
  });

  it('writes the fields alone for an empty object, and gives up on bytes that are not valid UTF-8', () => {
    expect(JSON.parse(sent(' { } ').text)).toEqual({ logprobs: true, return_token_ids: true });
    const invalid = Buffer.concat([Buffer.from('{"model":"p","messages":[{"role":"user","content":"'), Buffer.from([0xff]), Buffer.from('"}]}')]);
    expect(upstreamBodyBytes(JSON.parse(invalid.toString('utf8')), invalid, 'vllm', undefined)).toBeUndefined();
  });
});

describe('every sampling setting of run.yaml or a rollout request reaches the engine', () => {
  const settings = {
    temperature: 0.6,
    max_tokens: 300,
    top_p: 0.95,
    top_k: 20,
    min_p: 0.05,
    stop: ['</done>'],
    presence_penalty: 0.5,
    frequency_penalty: 0.25,
    repetition_penalty: 1.1,
    seed: 1234,
    logprobs: 3,
  };
  const forced = forcedSampling('policy', settings);

  it("as Chat Completions fields over the harness's own, its stop strings kept beside the forced ones", () => {
    const { text } = sent('{"model":"x","top_p":0.1,"seed":1,"stop":"STOP","max_tokens":9999,"messages":[{"role":"user","content":"hi"}]}', forced);
    expect(JSON.parse(text)).toMatchObject({
      model: 'policy',
      temperature: 0.6,
      max_tokens: 300,
      top_p: 0.95,
      top_k: 20,
      min_p: 0.05,
      stop: ['STOP', '</done>'],
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      repetition_penalty: 1.1,
      seed: 1234,
      logprobs: true,
      top_logprobs: 3,
    });
  });

  it('as completions fields under token-in', () => {
    const request = { model: 'x', stop: 'STOP', messages: [{ role: 'user', content: 'hi' }] } as ChatRequestBody;
    const { body } = engineRequest(request, [1, 2, 3], { kind: 'vllm', sampling: forced, maxModelLen: 4096 } as never);
    expect(body).toMatchObject({
      model: 'policy',
      prompt: [1, 2, 3],
      max_tokens: 300,
      temperature: 0.6,
      top_p: 0.95,
      top_k: 20,
      min_p: 0.05,
      stop: ['STOP', '</done>'],
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      repetition_penalty: 1.1,
      seed: 1234,
      logprobs: 3,
    });
  });
});
