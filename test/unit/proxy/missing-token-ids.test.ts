import { afterEach, describe, expect, it } from 'vitest';
import { TokenCapture } from '../../../src/engine-wire/token-capture.js';
import { startFixture, USER_MESSAGES, type Fixture } from './proxy-fixture.js';

describe('answers without token ids', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx?.close();
  });

  it('flags them, whole and streamed, and invents nothing', async () => {
    fx = await startFixture();
    fx.fake.script.push({ kind: 'text', omitTokenIds: true }, { kind: 'text', omitTokenIds: true });
    const client = fx.client(fx.session());
    const whole = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES });
    expect(whole.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    const stream = await client.chat.completions.create({ model: 'policy', messages: USER_MESSAGES, stream: true });
    for await (const _ of stream);

    const calls = await fx.sink.waitFor(2);
    for (const call of calls) {
      expect(call).toMatchObject({ status: 200, error: null, missingTokenIds: true, promptTokenIds: null, completionTokenIds: null, logprobs: null });
    }
  });

  it('flags a stream in which some content chunks lost their ids', () => {
    const capture = new TokenCapture();
    capture.addChunk({ prompt_token_ids: [1, 2], choices: [{ index: 0, delta: { role: 'assistant', content: '' }, token_ids: [] }] });
    capture.addChunk({ choices: [{ index: 0, delta: { content: 'a' }, token_ids: [7] }] });
    capture.addChunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] } }] });
    capture.addChunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls', token_ids: [8] }] });
    expect(capture.result()).toEqual({
      // held as an Int32Array, as a whole answer's ids read from its bytes are
      promptTokenIds: Int32Array.of(1, 2),
      completionTokenIds: [7, 8],
      logprobs: null,
      finishReason: 'tool_calls',
      missingTokenIds: true,
    });
  });

  it('keeps prompt ids beyond int32 as they came instead of wrapping them', () => {
    const capture = new TokenCapture();
    capture.addChunk({ prompt_token_ids: [1, 2 ** 31], choices: [{ index: 0, delta: { content: 'a' }, token_ids: [7], finish_reason: 'stop' }] });
    expect(capture.result().promptTokenIds).toEqual([1, 2 ** 31]);
  });

  it('keeps logprobs only when there is one per completion token', () => {
    const aligned = new TokenCapture();
    aligned.addResponse({
      prompt_token_ids: [1],
      choices: [{ index: 0, message: { content: 'ab' }, token_ids: [5, 6], logprobs: { content: [{ logprob: -1 }, { logprob: -2 }] }, finish_reason: 'stop' }],
    });
    expect(aligned.result()).toMatchObject({ logprobs: [-1, -2], missingTokenIds: false });

    const short = new TokenCapture();
    short.addResponse({
      prompt_token_ids: [1],
      choices: [{ index: 0, message: { content: 'ab' }, token_ids: [5, 6], logprobs: { content: [{ logprob: -1 }] }, finish_reason: 'stop' }],
    });
    expect(short.result()).toMatchObject({ completionTokenIds: [5, 6], logprobs: null, missingTokenIds: false });
  });
});
