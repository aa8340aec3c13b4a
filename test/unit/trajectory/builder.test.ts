import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import { renderCompletion, renderPrompt } from '../../../src/sim/chat-template.js';
import { IM_END_ID, IM_START_ID } from '../../../src/families/chatml/special-tokens.js';
import { decode, encode } from '../../../src/families/chatml/tokenizer.js';
import { RolloutTrajectoryBuilder } from '../../../src/trajectory/builder.js';
import { fromRecordedCall } from '../../../src/trajectory/trajectory-call.js';
import { maskSpans, samplesOf } from './build-samples.js';
import { BASH_TOOL, ChatHistory, finalAnswer, logprobsFor, RecordedRun, toolCall } from './recorded-run.js';

/** The tokens between two completions for one tool result, spelled out from the template's rules. */
function toolObservation(output: string): number[] {
  return [
    ...encode('\n'), // end of the echoed assistant turn
    IM_START_ID,
    ...encode('user\n'),
    ...encode('<tool_response>\n'),
    ...encode(output),
    ...encode('\n</tool_response>'),
    IM_END_ID,
    ...encode('\n'),
    IM_START_ID,
    ...encode('assistant\n'), // generation prompt
  ];
}

let run: RecordedRun | undefined;
afterEach(async () => {
  await run?.close();
  run?.remove();
  run = undefined;
});

const SYSTEM = 'You are a careful shell agent.';
const TASK = 'Create hello.txt with two lines.';

/** A tool-using conversation: one turn per command, then a final answer. */
async function toolConversation(rollout: Awaited<ReturnType<RecordedRun['rollout']>>, commands: string[], outputs: string[]) {
  const chat = new ChatHistory(SYSTEM, TASK);
  const sent: ChatMessage[][] = [];
  const answers = [...commands.map(toolCall), finalAnswer('Done: hello.txt has two lines.')];
  for (const [i, answer] of answers.entries()) {
    sent.push(chat.snapshot());
    const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL] });
    chat.answer(answer, recorded.seq);
    if (i < outputs.length) chat.toolResult(outputs[i] as string, recorded.seq);
  }
  return { sent, answers, chat };
}

describe('trajectory builder over calls recorded with the sim template', () => {
  it('merges a multi-turn tool conversation into one sample with exact ids, masks and logprobs', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const outputs = ['', 'hello', 'hello\nworld'];
    const { sent, answers } = await toolConversation(rollout, ['echo hello > hello.txt', 'cat hello.txt', 'echo world >> hello.txt && cat hello.txt'], outputs);

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples).toHaveLength(1);
    const s = samples[0]!;
    expect(Array.from(s.prompt_ids)).toEqual(renderPrompt(sent[0]!, [BASH_TOOL]));
    expect(s).toMatchObject({
      num_turns: 4,
      segment: 0,
      break_reason: null,
      uid: 'hello',
      reward_score: 1,
      rollout_id: rollout.id,
      harness: 'forge-agent',
      finish_reason: 'stop',
      weight_version: null,
      multi_modal_data: null,
    });
    expect(s.extra_fields).toMatchObject({ call_seqs: [1, 2, 3, 4], simulated: true, run_id: 'run-test', sample_index: 0 });
    expect(stats).toMatchObject({ policyCalls: 4, mergedCalls: 3, breaks: {} });

    // Mask-1 spans are the completions with their logprobs; mask-0 spans are exactly the tool results.
    const spans = maskSpans(s.response_mask);
    expect(spans.map((x) => x.mask)).toEqual([1, 0, 1, 0, 1, 0, 1]);
    answers.forEach((answer, turn) => {
      const span = spans[turn * 2]!;
      expect(Array.from(s.response_ids.slice(span.start, span.end))).toEqual(renderCompletion(answer));
      expect(Array.from(s.response_logprobs.slice(span.start, span.end))).toEqual(logprobsFor(turn + 1, renderCompletion(answer).length));
    });
    outputs.forEach((output, turn) => {
      const span = spans[turn * 2 + 1]!;
      const observed = Array.from(s.response_ids.slice(span.start, span.end));
      expect(observed).toEqual(toolObservation(output));
      expect(decode(observed)).toBe(`\n<|im_start|>user\n<tool_response>\n${output}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`);
      expect(s.response_logprobs.slice(span.start, span.end).every((lp) => lp === 0)).toBe(true);
    });
    // The whole sample is the last prompt followed by the last completion.
    expect([...s.prompt_ids, ...s.response_ids]).toEqual([...renderPrompt(sent[3]!, [BASH_TOOL]), ...renderCompletion(answers[3]!)]);

    // The store keeps prompts as deltas and the builder merges from them; from whole prompts it must build the same sample.
    const builder = new RolloutTrajectoryBuilder({
      runId: 'run-test',
      rolloutId: rollout.id,
      taskId: 'hello',
      sampleIndex: 0,
      harness: 'forge-agent',
      reward: 1,
      simulated: true,
    });
    for (const call of await run.store.listCalls(rollout.id)) await builder.add(fromRecordedCall(call));
    expect((await builder.finish()).samples).toEqual(samples);
  });

  it('splits a conversation at a weight update: each part its own sample, labelled with the version that answered it', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    const answers = [toolCall('ls'), toolCall('pwd'), toolCall('cat a.txt'), finalAnswer('done')];
    const versions = ['7', '7', '8', '8'];
    const sent: ChatMessage[][] = [];
    for (const [i, answer] of answers.entries()) {
      sent.push(chat.snapshot());
      const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL], over: { weightVersion: versions[i]! } });
      chat.answer(answer, recorded.seq);
      if (i < 3) chat.toolResult(`out ${i}`, recorded.seq);
    }

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.segment, s.break_reason, s.weight_version, s.extra_fields.call_seqs])).toEqual([
      [0, null, '7', [1, 2]],
      [1, 'weight_update', '8', [3, 4]],
    ]);
    expect(stats.breaks).toEqual({ weight_update: 1 });
    // the second part starts from the whole prompt of the first call the new weights answered
    expect(Array.from(samples[1]!.prompt_ids)).toEqual(renderPrompt(sent[2]!, [BASH_TOOL]));
    expect([...samples[1]!.prompt_ids, ...samples[1]!.response_ids]).toEqual([...renderPrompt(sent[3]!, [BASH_TOOL]), ...renderCompletion(answers[3]!)]);
    // every completion token is in exactly one sample
    const trained = samples.reduce((n, s) => n + s.response_mask.filter((m) => m === 1).length, 0);
    expect(trained).toBe(answers.reduce((n, a) => n + renderCompletion(a).length, 0));

    // the in-memory path (records as the proxy hands them over) splits the same way
    const builder = new RolloutTrajectoryBuilder({
      runId: 'run-test',
      rolloutId: rollout.id,
      taskId: 'hello',
      sampleIndex: 0,
      harness: 'forge-agent',
      reward: 1,
      simulated: true,
    });
    for (const call of await run.store.listCalls(rollout.id)) await builder.add(fromRecordedCall(call));
    expect((await builder.finish()).samples).toEqual(samples);
  });

  it('keeps one sample when every call was answered by the same version', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    for (const [i, answer] of [toolCall('ls'), finalAnswer('done')].entries()) {
      const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL], over: { weightVersion: 'step-3' } });
      chat.answer(answer, recorded.seq);
      if (i === 0) chat.toolResult('a.txt', recorded.seq);
    }
    const { samples } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.break_reason, s.weight_version, s.extra_fields.call_seqs])).toEqual([[null, 'step-3', [1, 2]]]);
  });

  it('forks a new segment labelled history_edited when earlier messages are compacted', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 0);
    const { chat } = await toolConversation(rollout, ['ls', 'pwd'], ['a.txt', '/work']);
    // Compaction: the harness replaces the history with a summary and goes on.
    const compacted: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `${TASK}\n\n[Summary of earlier turns: listed files, printed the working directory.]` },
    ];
    await rollout.call(compacted, toolCall('echo hello > hello.txt'), { tools: [BASH_TOOL] });
    const next = [
      ...compacted,
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: 'x', type: 'function' as const, function: { name: 'bash', arguments: JSON.stringify({ command: 'echo hello > hello.txt' }) } }],
      },
      { role: 'tool' as const, content: '', tool_call_id: 'x' },
    ];
    await rollout.call(next, finalAnswer('done'), { tools: [BASH_TOOL] });
    expect(chat.messages.length).toBeGreaterThan(compacted.length);

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.segment, s.break_reason, s.extra_fields.call_seqs])).toEqual([
      [0, null, [1, 2, 3]],
      [1, 'history_edited', [4, 5]],
    ]);
    expect(Array.from(samples[1]!.prompt_ids)).toEqual(renderPrompt(compacted, [BASH_TOOL]));
    expect(samples[1]!.response_mask.filter((m) => m === 0).length).toBeGreaterThan(0);
    expect(samples[0]!.response_mask.includes(1)).toBe(true);
    expect(stats.breaks).toEqual({ history_edited: 1 });
  });

  it('excludes an interleaved helper call without breaking the policy chain', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    const first = toolCall('ls');
    await rollout.call(chat.snapshot(), first, { tools: [BASH_TOOL] });
    chat.answer(first, 1);
    chat.toolResult('a.txt', 1);
    // A title generator on a small model, in the middle of the episode.
    await rollout.call([{ role: 'user', content: `Write a 3-word title for: ${TASK}` }], finalAnswer('Two line file'), {
      label: 'helper',
      model: 'small-fast',
    });
    await rollout.call(chat.snapshot(), finalAnswer('done'), { tools: [BASH_TOOL] });

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples).toHaveLength(1);
    expect(samples[0]!.extra_fields.call_seqs).toEqual([1, 3]);
    expect(samples[0]!.extra_fields.excluded_calls).toMatchObject({ helper: 1, missing_token_ids: 0 });
    expect(stats).toMatchObject({ policyCalls: 2, mergedCalls: 1, breaks: {} });
    expect(decode(Array.from(samples[0]!.response_ids))).not.toContain('title');
  });

  it('excludes and counts a call without token ids; the conversation resumes in a new segment', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    const answers = [toolCall('ls'), toolCall('pwd'), finalAnswer('done')];
    for (const [i, answer] of answers.entries()) {
      const over = i === 1 ? { promptTokenIds: null, completionTokenIds: null, logprobs: null, missingTokenIds: true } : {};
      await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL], over });
      chat.answer(answer, i + 1);
      chat.toolResult(`out ${i}`, i + 1);
    }

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.break_reason, s.extra_fields.call_seqs])).toEqual([
      [null, [1]],
      ['missing_token_ids', [3]],
    ]);
    expect(stats.excluded.missing_token_ids).toBe(1);
    expect(samples[0]!.extra_fields.excluded_calls.missing_token_ids).toBe(1);
    // Never a row with a zeroed mask: every sample keeps its generated tokens.
    for (const s of samples) expect(s.response_mask.includes(1)).toBe(true);
  });

  it('keeps a sub-agent (another system prompt) interleaved with the main conversation in its own sample', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const main = new ChatHistory(SYSTEM, TASK);
    const sub = new ChatHistory('You are a search sub-agent. Report file names only.', 'Find text files.');
    const mainAnswers = [toolCall('ls'), toolCall('cat a.txt'), finalAnswer('done')];
    const subAnswers = [toolCall('find . -name "*.txt"'), finalAnswer('a.txt')];
    const mainPrompts: number[][] = [];
    const subPrompts: number[][] = [];
    const order: ['main' | 'sub', number][] = [
      ['main', 0],
      ['sub', 0],
      ['main', 1],
      ['sub', 1],
      ['main', 2],
    ];
    for (const [who, turn] of order) {
      const chat = who === 'main' ? main : sub;
      const answer = (who === 'main' ? mainAnswers : subAnswers)[turn]!;
      const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL] });
      (who === 'main' ? mainPrompts : subPrompts).push(Array.from(recorded.promptTokenIds!));
      chat.answer(answer, recorded.seq);
      chat.toolResult(`${who} output ${turn}`, recorded.seq);
    }

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.segment, s.break_reason, s.extra_fields.call_seqs])).toEqual([
      [0, null, [1, 3, 5]],
      [1, 'sub_agent', [2, 4]],
    ]);
    const [mainSample, subSample] = samples as [(typeof samples)[0], (typeof samples)[0]];
    expect([...mainSample.prompt_ids, ...mainSample.response_ids]).toEqual([...mainPrompts[2]!, ...renderCompletion(mainAnswers[2]!)]);
    expect([...subSample.prompt_ids, ...subSample.response_ids]).toEqual([...subPrompts[1]!, ...renderCompletion(subAnswers[1]!)]);
    expect(stats).toMatchObject({ policyCalls: 5, mergedCalls: 3, breaks: { sub_agent: 1 } });
  });

  it('keeps merging the main conversation when a sub-agent shares its system prompt (labelled history_edited)', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('hello', 0, 1);
    const main = new ChatHistory(SYSTEM, TASK);
    const sub = new ChatHistory(SYSTEM, 'Sub-task: list the text files.');
    for (const [who, turn] of [
      ['main', 0],
      ['sub', 0],
      ['main', 1],
      ['sub', 1],
      ['main', 2],
    ] as const) {
      const chat = who === 'main' ? main : sub;
      const answer = turn < 2 ? toolCall(`${who} ${turn}`) : finalAnswer('done');
      const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL] });
      chat.answer(answer, recorded.seq);
      chat.toolResult(`${who} output ${turn}`, recorded.seq);
    }
    const { samples } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.break_reason, s.extra_fields.call_seqs])).toEqual([
      [null, [1, 3, 5]],
      ['history_edited', [2, 4]],
    ]);
  });

  it('labels ids that decode to the same text as retokenization, and a different rendering as template_mismatch', async () => {
    run = await RecordedRun.create();
    const retok = await run.rollout('retok', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    const answer = { content: 'Looking around first.', toolCalls: [{ name: 'bash', arguments: '{"command": "ls"}' }] };
    const one = await retok.call(chat.snapshot(), answer, { tools: [BASH_TOOL] });
    chat.answer(answer, 1);
    chat.toolResult('a.txt', 1);
    // The engine re-encoded the echoed answer text one character per token.
    const rendered = renderPrompt(chat.snapshot(), [BASH_TOOL]);
    const contentStart = one.promptTokenIds!.length;
    const contentIds = encode(answer.content);
    const perChar = [...answer.content].flatMap((ch) => encode(ch));
    expect(perChar).not.toEqual(contentIds);
    const retokenized = [...rendered.slice(0, contentStart), ...perChar, ...rendered.slice(contentStart + contentIds.length)];
    expect(decode(retokenized)).toBe(decode(rendered));
    await retok.call(chat.snapshot(), finalAnswer('done'), { tools: [BASH_TOOL], promptIds: retokenized });

    // A Qwen3-style template that drops the reasoning of earlier turns from the prompt.
    const mismatch = await run.rollout('mismatch', 0, 1);
    const chat2 = new ChatHistory(SYSTEM, TASK);
    const thinking = { content: null, reasoning: 'List the files first.', toolCalls: [{ name: 'bash', arguments: '{"command": "ls"}' }] };
    await mismatch.call(chat2.snapshot(), thinking, { tools: [BASH_TOOL] });
    chat2.answer(thinking, 1);
    chat2.toolResult('a.txt', 1);
    const withoutReasoning = chat2.snapshot().map((m) => (m.role === 'assistant' ? { ...m, reasoning_content: undefined } : m));
    await mismatch.call(chat2.snapshot(), finalAnswer('done'), { tools: [BASH_TOOL], promptIds: renderPrompt(withoutReasoning, [BASH_TOOL]) });

    expect((await samplesOf(run, retok.id)).samples.map((s) => s.break_reason)).toEqual([null, 'retokenization']);
    expect((await samplesOf(run, mismatch.id)).samples.map((s) => s.break_reason)).toEqual([null, 'template_mismatch']);
  });

  it('without the sim tokenizer, tells the two apart by where the ids diverge', async () => {
    run = await RecordedRun.create({ upstream: 'http://vllm.internal:8000/v1' });
    const rollout = await run.rollout('t', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    const first = finalAnswer('Hello there');
    const one = await rollout.call(chat.snapshot(), first, { tools: [BASH_TOOL] });
    chat.answer(first, 1);
    chat.messages.push({ role: 'user', content: 'again' });
    const rendered = renderPrompt(chat.snapshot(), [BASH_TOOL]);
    const start = one.promptTokenIds!.length;
    const retokenized = [...rendered.slice(0, start), ...encode('H'), ...encode('ello there'), ...rendered.slice(start + encode('Hello there').length)];
    await rollout.call(chat.snapshot(), finalAnswer('ok'), { tools: [BASH_TOOL], promptIds: retokenized });
    chat.answer(finalAnswer('ok'), 2);
    chat.messages.push({ role: 'user', content: 'and again' });
    // The system turn itself now renders differently (another tools preamble).
    const reRendered = renderPrompt(chat.snapshot(), [{ ...BASH_TOOL, function: { ...BASH_TOOL.function!, description: 'Run bash.' } }]);
    await rollout.call(chat.snapshot(), finalAnswer('ok'), { tools: [BASH_TOOL], promptIds: reRendered });

    const { samples } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.break_reason, s.extra_fields.simulated])).toEqual([
      [null, false],
      ['retokenization', false],
      ['template_mismatch', false],
    ]);
  });

  it('labels a policy call that continues a helper conversation helper_call; count_tokens and failed calls are excluded', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('t', 0, 1);
    const chat = new ChatHistory(SYSTEM, TASK);
    await rollout.call(chat.snapshot(), toolCall('ls'), { tools: [BASH_TOOL] });
    const helperMessages: ChatMessage[] = [{ role: 'user', content: 'Summarise the task in one line.' }];
    await rollout.call(helperMessages, finalAnswer('Make a file.'), { label: 'helper', model: 'small' });
    await rollout.call(chat.snapshot(), finalAnswer('x'), { label: 'count_tokens' });
    await rollout.call(chat.snapshot(), finalAnswer('x'), {
      over: { status: 503, error: 'upstream unavailable', response: null, promptTokenIds: null, completionTokenIds: null, logprobs: null },
    });
    await rollout.call([...helperMessages, { role: 'assistant', content: 'Make a file.' }, { role: 'user', content: 'Now do it.' }], finalAnswer('ok'));

    const { samples, stats } = await samplesOf(run, rollout.id);
    expect(samples.map((s) => [s.break_reason, s.extra_fields.call_seqs])).toEqual([
      [null, [1]],
      ['helper_call', [5]],
    ]);
    expect(stats.excluded).toEqual({ missing_token_ids: 0, missing_logprobs: 0, failed: 1, helper: 1, count_tokens: 1 });
  });

  it("keeps each image's place in the request, its URL as sent and where its placeholder starts in the tokens", async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('gui', 0, 1);
    const dataUrl = `data:image/png;base64,${Buffer.from('not really a png, but bytes all the same').toString('base64')}`;
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You operate a browser.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Click the button.' },
          { type: 'image_url', image_url: { url: dataUrl } },
          { type: 'image_url', image_url: 'https://example.test/shot.png' },
        ],
      },
    ];
    await rollout.call(messages, finalAnswer('clicked'));

    const { samples } = await samplesOf(run, rollout.id);
    const images = samples[0]!.multi_modal_data!.images;
    expect(images.map(({ url, message_index, part_index }) => ({ message_index, part_index, url }))).toEqual([
      { message_index: 1, part_index: 1, url: dataUrl },
      { message_index: 1, part_index: 2, url: 'https://example.test/shot.png' },
    ]);
    // the sim's ChatML: <|vision_start|> (7), 16 × <|image_pad|> (8), <|vision_end|> (9)
    for (const { token_offset } of images)
      expect(Array.from(samples[0]!.prompt_ids.subarray(token_offset!, token_offset! + 18))).toEqual([7, ...Array(16).fill(8), 9]);
    expect(images[1]!.token_offset).toBe(images[0]!.token_offset! + 18);
  });
});
