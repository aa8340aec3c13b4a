import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { startFixture, type Fixture } from './proxy-fixture.js';

const EXEC_COMMAND = {
  type: 'function' as const,
  name: 'exec_command',
  description: 'Runs a command in a PTY.',
  strict: false,
  parameters: { type: 'object', properties: { cmd: { type: 'string' }, workdir: { type: 'string' } }, required: ['cmd'] },
};

const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('Responses protocol through the official OpenAI SDK', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('answers a non-streaming call with a response object the SDK reads, and records it', async () => {
    const session = fx.session();
    const response = await fx.client(session).responses.create({ model: 'policy', instructions: 'Be brief.', input: 'Say hello.' });

    expect(response.output_text).toBe('Hello from the fake upstream.');
    expect(response).toMatchObject({
      id: expect.stringMatching(/^resp_/),
      object: 'response',
      status: 'completed',
      model: 'policy',
      error: null,
      incomplete_details: null,
      output: [
        {
          type: 'message',
          id: expect.stringMatching(/^msg_/),
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello from the fake upstream.', annotations: [] }],
        },
      ],
    });
    const produced = fx.fake.produced[0]!;
    expect(response.usage).toEqual({
      input_tokens: produced.promptTokenIds.length,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: produced.completionTokenIds.length,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: produced.promptTokenIds.length + produced.completionTokenIds.length,
    });
    expect(fx.fake.requests[0]?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello.' },
    ]);

    const [call] = await fx.sink.waitFor(1);
    expect(call).toMatchObject({ protocol: 'responses', label: 'policy', model: 'policy', stream: false, status: 200, error: null, missingTokenIds: false });
    expect(call?.request).toEqual({ model: 'policy', instructions: 'Be brief.', input: 'Say hello.' });
    const { output_text: _added, ...sent } = response;
    expect(call?.response).toEqual(JSON.parse(JSON.stringify(sent)));
    expect(call?.promptTokenIds && Array.from(call.promptTokenIds)).toEqual(produced.promptTokenIds);
    expect(call?.completionTokenIds).toEqual(produced.completionTokenIds);
  });

  it('returns a tool call as a function_call item with the arguments verbatim', async () => {
    const args = JSON.stringify({ cmd: 'ls -la /workspace && cat notes.txt' });
    fx.fake.script.push({ kind: 'tool', name: 'exec_command', arguments: args });
    const response = await fx.client(fx.session()).responses.create({ model: 'policy', input: 'List files.', tools: [EXEC_COMMAND] });

    expect(response.output).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_fake_1', name: 'exec_command', arguments: args, status: 'completed' },
    ]);
    expect(response.output_text).toBe('');
    expect(fx.fake.requests[0]?.body).toMatchObject({
      tools: [
        { type: 'function', function: { name: 'exec_command', description: EXEC_COMMAND.description, parameters: EXEC_COMMAND.parameters, strict: false } },
      ],
    });
  });

  it('streams text event by event; the SDK stream helper assembles the same response', async () => {
    const session = fx.session();
    const runner = fx.client(session).responses.stream({ model: 'policy', input: 'Say hello.' });
    const deltas: string[] = [];
    runner.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await runner.finalResponse();

    expect(deltas).toEqual(['Hello', ' from', ' the', ' fake', ' upstream.']);
    expect(final.output_text).toBe('Hello from the fake upstream.');
    expect(final.status).toBe('completed');
    expect(final.usage?.output_tokens).toBe(fx.fake.produced[0]?.completionTokenIds.length);

    const [call] = await fx.sink.waitFor(1);
    expect(call).toMatchObject({ protocol: 'responses', stream: true, status: 200, error: null, missingTokenIds: false });
    expect(call?.completionTokenIds).toEqual(fx.fake.produced[0]?.completionTokenIds);
    expect(call?.response).toMatchObject({
      id: final.id,
      status: 'completed',
      output: [{ type: 'message', id: final.output[0]?.id, content: [{ type: 'output_text', text: 'Hello from the fake upstream.' }] }],
    });
  });

  it('streams a tool call: added with empty arguments, argument deltas, done, then response.completed last', async () => {
    const args = JSON.stringify({ cmd: 'echo hello > /workspace/hello.txt', workdir: '/workspace' });
    fx.fake.script.push({ kind: 'tool', name: 'exec_command', arguments: args });
    const stream = await fx.client(fx.session()).responses.create({ model: 'policy', input: 'Write the file.', tools: [EXEC_COMMAND], stream: true });
    const events = await collect(stream);

    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]?.type).toBe('response.created');
    expect(events[1]?.type).toBe('response.in_progress');
    const added = events.find((e) => e.type === 'response.output_item.added');
    expect(added?.type === 'response.output_item.added' && added.item).toMatchObject({
      type: 'function_call',
      name: 'exec_command',
      arguments: '',
      status: 'in_progress',
    });
    const deltas = events.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(args);
    const argsDone = events.find((e) => e.type === 'response.function_call_arguments.done');
    expect(argsDone?.type === 'response.function_call_arguments.done' && argsDone).toMatchObject({ name: 'exec_command', arguments: args });

    const done = events.flatMap((e) => (e.type === 'response.output_item.done' ? [e.item] : []));
    expect(done).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_fake_1', name: 'exec_command', arguments: args, status: 'completed' },
    ]);
    const last = events.at(-1);
    expect(last?.type).toBe('response.completed');
    expect(last?.type === 'response.completed' && last.response.output).toEqual(done);
    expect(events.filter((e) => e.type === 'response.completed')).toHaveLength(1);
  });

  it('writes every event as an SSE with an event: line matching its type', async () => {
    const res = await fetch(`${fx.proxy.url}/s/${fx.session().secret}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', input: 'hi', stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const blocks = (await res.text()).split('\n\n').filter((block) => block.trim() !== '');
    expect(blocks.length).toBeGreaterThan(8);
    for (const block of blocks) {
      const [eventLine, dataLine] = block.split('\n');
      const type = (JSON.parse(dataLine!.replace(/^data: /, '')) as { type: string }).type;
      expect(eventLine).toBe(`event: ${type}`);
    }
  });

  it('sends input images to the upstream as image_url parts', async () => {
    await fx.client(fx.session()).responses.create({
      model: 'policy',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Describe both.' },
            { type: 'input_image', image_url: PNG_DATA_URL, detail: 'auto' },
            { type: 'input_image', image_url: 'https://example.test/diagram.png', detail: 'high' },
          ],
        },
      ],
    });
    expect(fx.fake.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe both.' },
          { type: 'image_url', image_url: { url: PNG_DATA_URL, detail: 'auto' } },
          { type: 'image_url', image_url: { url: 'https://example.test/diagram.png', detail: 'high' } },
        ],
      },
    ]);
  });

  it('answers bad input with a 400 naming the field, records it, and does not call the upstream', async () => {
    const client = fx.client(fx.session());
    const error = await client.responses
      .create({ model: 'policy', input: [{ role: 'user', content: 'a' }, { type: 'function_call_output', output: 'orphan' } as never] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('input[1].call_id');
    expect(fx.fake.requests).toHaveLength(0);
    const [call] = await fx.sink.waitFor(1);
    expect(call).toMatchObject({ protocol: 'responses', status: 400, response: null });
    expect(call?.error).toContain('input[1].call_id');
    const ok = await client.responses.create({ model: 'policy', input: 'still there?' });
    expect(ok.output_text).toBe('Hello from the fake upstream.');
  });

  it('passes an upstream 500 on as an APIError with that status, whole and streamed', async () => {
    const client = fx.client(fx.session());
    const fail3 = () => [1, 2, 3].map(() => ({ kind: 'status' as const, status: 500, message: 'engine exploded' }));
    fx.fake.script.push(...fail3());
    const whole = await client.responses.create({ model: 'policy', input: 'hi' }).catch((e: unknown) => e);
    fx.fake.script.push(...fail3());
    const streamed = await client.responses.create({ model: 'policy', input: 'hi', stream: true }).catch((e: unknown) => e);
    for (const error of [whole, streamed]) {
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
      expect((error as Error).message).toContain('engine exploded');
    }
    const calls = await fx.sink.waitFor(2);
    expect(calls.map((c) => [c.protocol, c.status])).toEqual([
      ['responses', 500],
      ['responses', 500],
    ]);
  });

  it('ends a stream whose upstream died with response.failed, records the failure, and keeps serving', async () => {
    fx.fake.script.push({ kind: 'die', chunks: 2 });
    const client = fx.client(fx.session());
    const events = await collect(await client.responses.create({ model: 'policy', input: 'hi', stream: true }));

    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    expect(last?.type === 'response.failed' && last.response).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    expect(last?.type === 'response.failed' && last.response.error?.message).toMatch(/^upstream stream failed: /);
    expect(events.some((e) => e.type === 'response.completed' || e.type === 'response.output_item.done')).toBe(false);
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Hello from');

    const [call] = await fx.sink.waitFor(1);
    expect(call?.error).toMatch(/^upstream stream failed: /);
    expect(call?.response).toMatchObject({ status: 'failed' });

    const after = await client.responses.create({ model: 'policy', input: 'again' });
    expect(after.output_text).toBe('Hello from the fake upstream.');
  });

  it('ends with response.failed when the upstream reports an error mid-stream', async () => {
    fx.fake.script.push({ kind: 'error-event', chunks: 1 });
    const events = await collect(await fx.client(fx.session()).responses.create({ model: 'policy', input: 'hi', stream: true }));
    const last = events.at(-1);
    expect(last?.type === 'response.failed' && last.response.error?.message).toContain('fake engine error');
  });
});
