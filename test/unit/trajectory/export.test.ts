import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { afterEach, describe, expect, it } from 'vitest';
import { exportRun } from '../../../src/trajectory/export.js';
import { sampleJson, type TrajectorySample } from '../../../src/trajectory/types.js';
import { samplesOf } from './build-samples.js';
import { BASH_TOOL, ChatHistory, finalAnswer, RecordedRun, toolCall } from './recorded-run.js';

let run: RecordedRun | undefined;
afterEach(async () => {
  await run?.close();
  run?.remove();
  run = undefined;
});

/** Two tasks × two rollouts, rewards 1/0 and 0.5/none; the last rollout has a sub-agent, so two samples. */
async function recordRun(): Promise<RecordedRun> {
  const r = await RecordedRun.create({ k: 2 });
  const rewards: [string, number, number | null][] = [
    ['alpha', 0, 1],
    ['alpha', 1, 0],
    ['beta', 0, 0.5],
    ['beta', 1, null],
  ];
  for (const [task, index, reward] of rewards) {
    const rollout = await r.rollout(task, index, reward);
    const chat = new ChatHistory('You are a shell agent.', `Solve ${task}.`);
    const answers = [toolCall(`echo ${task}`), finalAnswer(`${task} done`)];
    for (const [turn, answer] of answers.entries()) {
      const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL] });
      chat.answer(answer, recorded.seq);
      if (turn === 0) chat.toolResult(task, recorded.seq);
    }
    if (task === 'beta' && index === 0) {
      await rollout.call(
        [
          { role: 'system', content: 'You are a sub-agent.' },
          { role: 'user', content: 'look' },
        ],
        finalAnswer('seen'),
      );
    }
  }
  return r;
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('openforge export', () => {
  it('writes veRL JSONL rows identical to the built samples, one per segment of every rewarded rollout', async () => {
    run = await recordRun();
    const out = path.join(run.dir, 'out', 'train.jsonl');
    const report = await exportRun(run.dir, { format: 'verl', out });
    expect(report).toMatchObject({ rows: 4, rolloutsExported: 3, fileType: 'jsonl', simulated: true, skipped: { withoutReward: 1, corrupt: [] } });
    const rows = readJsonl(out);
    expect(rows.map((r) => [r.uid, r.segment, r.reward_score])).toEqual([
      ['alpha', 0, 1],
      ['alpha', 0, 0],
      ['beta', 0, 0.5],
      ['beta', 1, 0.5],
    ]);
    const expected = (await samplesOf(run, 'run-test.alpha.0.1')).samples[0]!;
    expect(rows[0]).toEqual(JSON.parse(JSON.stringify(sampleJson(expected))));
    for (const row of rows) {
      const s = row as unknown as TrajectorySample;
      expect(s.response_mask).toHaveLength(s.response_ids.length);
      expect(s.response_logprobs).toHaveLength(s.response_ids.length);
      expect(s.prompt_ids.every(Number.isInteger)).toBe(true);
    }
    // Nothing but the final file is left behind.
    expect(readdirSync(path.dirname(out))).toEqual(['train.jsonl']);
  });

  it('leaves out, with --drop-uniform-groups, every rollout of a task whose graded rollouts all got one reward, and counts them', async () => {
    run = await recordRun();
    const out = path.join(run.dir, 'out', 'varied.jsonl');
    // alpha: rewards 1 and 0 (a signal); beta: 0.5 and ungraded (one reward: no spread)
    const report = await exportRun(run.dir, { format: 'verl', out, dropUniformGroups: true });
    expect(report).toMatchObject({ rows: 2, rolloutsExported: 2, uniformGroups: 1, skipped: { uniformGroups: 2, withoutReward: 0 } });
    expect(new Set(readJsonl(out).map((row) => row.uid))).toEqual(new Set(['alpha']));
  });

  it('writes veRL Parquet with list<int32> / list<float> columns that an independent reader reads back', async () => {
    run = await recordRun();
    const out = path.join(run.dir, 'train.parquet');
    const report = await exportRun(run.dir, { format: 'verl', out, parquet: { rowGroupRows: 3 } });
    expect(report.rows).toBe(4);

    const file = await asyncBufferFromFile(out);
    const metadata = await parquetMetadataAsync(file);
    expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([3, 1]); // written a row group at a time
    const columns = Object.fromEntries(parquetSchema(metadata).children.map((c) => [c.element.name, c]));
    for (const name of ['prompt_ids', 'response_ids', 'response_mask']) {
      expect(columns[name]!.element.converted_type).toBe('LIST');
      expect(columns[name]!.children[0]!.children[0]!.element.type).toBe('INT32');
    }
    expect(columns.response_logprobs!.children[0]!.children[0]!.element.type).toBe('FLOAT');
    expect(columns.uid!.element).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
    expect(columns.reward_score!.element).toMatchObject({ type: 'DOUBLE', repetition_type: 'OPTIONAL' });

    const rows = await parquetReadObjects({ file });
    const jsonlFile = path.join(run.dir, 'same.jsonl');
    await exportRun(run.dir, { format: 'verl', out: jsonlFile });
    const expected = readJsonl(jsonlFile) as unknown as TrajectorySample[];
    expect(rows).toHaveLength(expected.length);
    rows.forEach((row, i) => {
      const want = expected[i]!;
      expect(Array.from(row.prompt_ids as number[])).toEqual(want.prompt_ids);
      expect(Array.from(row.response_ids as number[])).toEqual(want.response_ids);
      expect(Array.from(row.response_mask as number[])).toEqual(want.response_mask);
      expect(Array.from(row.response_logprobs as number[])).toEqual(want.response_logprobs.map(Math.fround));
      expect(row).toMatchObject({
        reward_score: want.reward_score,
        num_turns: want.num_turns,
        uid: want.uid,
        rollout_id: want.rollout_id,
        segment: want.segment,
        break_reason: want.break_reason,
        harness: want.harness,
        finish_reason: want.finish_reason,
      });
      expect(row.weight_version ?? null).toBeNull();
      expect(row.extra_fields).toEqual(want.extra_fields);
    });
  });

  it('exports a rollout split at a weight update as one veRL row per version, in Parquet and JSONL alike', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('alpha', 0, 1);
    const chat = new ChatHistory('You are a shell agent.', 'Solve alpha.');
    const answers = [toolCall('ls'), toolCall('pwd'), finalAnswer('alpha done')];
    for (const [turn, answer] of answers.entries()) {
      const recorded = await rollout.call(chat.snapshot(), answer, { tools: [BASH_TOOL], over: { weightVersion: turn === 0 ? 'v1' : 'v2' } });
      chat.answer(answer, recorded.seq);
      if (turn < 2) chat.toolResult(`out ${turn}`, recorded.seq);
    }
    const jsonl = path.join(run.dir, 'split.jsonl');
    const parquet = path.join(run.dir, 'split.parquet');
    await exportRun(run.dir, { format: 'verl', out: jsonl });
    await exportRun(run.dir, { format: 'verl', out: parquet });
    const lines = readJsonl(jsonl);
    expect(lines.map((r) => [r.segment, r.break_reason, r.weight_version])).toEqual([
      [0, null, 'v1'],
      [1, 'weight_update', 'v2'],
    ]);
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(parquet) });
    expect(rows.map((r) => [r.segment, r.break_reason, r.weight_version])).toEqual([
      [0, null, 'v1'],
      [1, 'weight_update', 'v2'],
    ]);
  });

  it('leaves out stale rollouts, counted, unless includeStale keeps them', async () => {
    run = await recordRun();
    await run.store.updateRollout('run-test.alpha.1.1', { staleness: 3, stale: true });
    await run.store.updateRollout('run-test.beta.0.1', { staleness: 1, stale: false });
    const out = path.join(run.dir, 'fresh.jsonl');
    const report = await exportRun(run.dir, { format: 'verl', out });
    expect(report.skipped.stale).toBe(1);
    expect(new Set(readJsonl(out).map((r) => r.rollout_id))).toEqual(new Set(['run-test.alpha.0.1', 'run-test.beta.0.1']));
    const all = path.join(run.dir, 'all.jsonl');
    const kept = await exportRun(run.dir, { format: 'verl', out: all, includeStale: true });
    expect(kept.skipped.stale).toBe(0);
    expect(new Set(readJsonl(all).map((r) => r.rollout_id))).toEqual(new Set(['run-test.alpha.0.1', 'run-test.alpha.1.1', 'run-test.beta.0.1']));
    expect(await run.store.getRollout('run-test.alpha.1.1')).toMatchObject({ staleness: 3, stale: true });
  });

  it('writes SFT chat JSONL (last request + answer, tools) filtered by --min-reward', async () => {
    run = await recordRun();
    const out = path.join(run.dir, 'sft.jsonl');
    const report = await exportRun(run.dir, { format: 'sft', out, minReward: 0.5 });
    expect(report).toMatchObject({ rows: 2, skipped: { belowMinReward: 1, withoutReward: 1 } });
    const rows = readJsonl(out);
    expect(rows[0]).toEqual({
      messages: [
        { role: 'system', content: 'You are a shell agent.' },
        { role: 'user', content: 'Solve alpha.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'bash', arguments: '{"command":"echo alpha"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1_0', content: 'alpha' },
        { role: 'assistant', content: 'alpha done' },
      ],
      tools: [BASH_TOOL],
    });
    // beta#0's last policy call is its sub-agent's: the record is that conversation.
    expect((rows[1]!.messages as unknown[]).at(-1)).toEqual({ role: 'assistant', content: 'seen' });
  });

  it("writes the same file with worker threads as in one thread: every batch in the run's order", async () => {
    run = await recordRun();
    const exportWith = async (workers: number) => {
      const out = path.join(run!.dir, `w${workers}.jsonl`);
      const calls: number[] = [];
      const report = await exportRun(run!.dir, { format: 'verl', out, workers, batchCalls: 2, onRollout: (n) => calls.push(n) });
      return { bytes: readFileSync(out), report: { ...report, file: '' }, calls };
    };
    const inThread = await exportWith(0);
    expect(inThread.report.rows).toBe(4);
    for (const workers of [1, 3]) {
      const parallel = await exportWith(workers); // batches of one rollout each, spread over the workers
      expect(parallel.bytes.equals(inThread.bytes)).toBe(true);
      expect(parallel.report).toEqual(inThread.report);
      expect(parallel.calls).toEqual(inThread.calls);
    }
    expect(readdirSync(run.dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('defaults to <output>/<run id>/<format>.jsonl and accepts the run folder itself', async () => {
    run = await recordRun();
    const report = await exportRun(path.join(run.dir, 'run-test'), { format: 'verl' });
    expect(report.file).toBe(path.join(run.dir, 'run-test', 'verl.jsonl'));
    expect(readJsonl(report.file)).toHaveLength(4);
  });
});
