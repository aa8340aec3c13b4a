import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parquetReadObjects, asyncBufferFromFile } from 'hyparquet';
import { afterEach, describe, expect, it } from 'vitest';
import { samplesForService } from '../../../src/service/samples.js';
import type { ChatMessage } from '../../../src/sim/chat-request.js';
import { exportRun } from '../../../src/trajectory/export.js';
import type { VerlImage } from '../../../src/trajectory/verl-images.js';
import { renderPrompt } from '../../../src/sim/chat-template.js';
import { finalAnswer, RecordedRun, type RolloutRecorder } from './recorded-run.js';

let run: RecordedRun | undefined;
afterEach(async () => {
  await run?.close();
  run?.remove();
  run = undefined;
});

const CLICK_TOOL = {
  type: 'function' as const,
  function: { name: 'computer', description: 'Act on the screen.', parameters: { type: 'object', properties: { action: { type: 'string' } } } },
};

/** Distinct bytes per screenshot (not a real PNG: the export never decodes them). */
function shot(name: string): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(`screenshot ${name} `.repeat(20))]);
}

function dataUrl(bytes: Buffer): string {
  return `data:image/png;base64,${bytes.toString('base64')}`;
}

function sha(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A GUI episode as forge-gui-agent sends it: the task with a first screenshot, then per action a tool result and
 * a user turn with the screenshot after it; every call extends the last, so the calls merge into one sample.
 */
async function guiEpisode(rollout: RolloutRecorder, shots: Buffer[]): Promise<void> {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You operate a browser.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Press the button.' },
        { type: 'image_url', image_url: { url: dataUrl(shots[0]!) } },
      ],
    },
  ];
  for (let turn = 1; turn < shots.length; turn++) {
    const answer = { content: null, toolCalls: [{ name: 'computer', arguments: `{"action":"click ${turn}"}` }] };
    const recorded = await rollout.call(structuredClone(messages), answer, { tools: [CLICK_TOOL] });
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${recorded.seq}_0`, type: 'function', function: { name: 'computer', arguments: `{"action":"click ${turn}"}` } }],
      },
      { role: 'tool', tool_call_id: `call_${recorded.seq}_0`, content: 'done' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(shots[turn]!) } }] },
    );
  }
  await rollout.call(structuredClone(messages), finalAnswer('pressed'), { tools: [CLICK_TOOL] });
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function imagesOf(row: Record<string, unknown>): VerlImage[] {
  return (row.multi_modal_data as { image: VerlImage[] } | null)?.image ?? [];
}

/** An image of a row as bytes: a data URL decoded, or a file resolved against the export's folder. */
function bytesOf(image: VerlImage, exportDir: string): Buffer {
  if (image.image.startsWith('data:')) return Buffer.from(image.image.slice(image.image.indexOf(',') + 1), 'base64');
  return readFileSync(path.resolve(exportDir, image.image));
}

describe('veRL rows with images', () => {
  it('puts every screenshot of a merged GUI episode in the row, in placeholder order, at its placeholder', async () => {
    run = await RecordedRun.create();
    const shots = [shot('a'), shot('b'), shot('c')];
    const rollout = await run.rollout('press-button', 0, 1);
    await guiEpisode(rollout, shots);
    const out = path.join(run.dir, 'verl.jsonl');
    const report = await exportRun(run.dir, { format: 'verl', out });
    expect(report.rows).toBe(1);
    const [row] = readJsonl(out);
    const tokens = [...(row!.prompt_ids as number[]), ...(row!.response_ids as number[])];
    const images = imagesOf(row!);
    expect(images.map((i) => bytesOf(i, run!.dir))).toEqual(shots);
    expect(images.map((i) => i.sha256)).toEqual(shots.map(sha));
    expect(images.map((i) => i.image)).toEqual(shots.map(dataUrl));
    // each offset opens a placeholder: <|vision_start|>, 16 × <|image_pad|>, <|vision_end|>; the later ones lie in
    // the response (observations between the turns), in the order the screenshots were shown
    const offsets = images.map((i) => i.token_offset!);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(offsets[1]).toBeGreaterThanOrEqual((row!.prompt_ids as number[]).length);
    for (const at of offsets) expect(tokens.slice(at, at + 18)).toEqual([7, ...Array(16).fill(8), 9]);
    expect(tokens.filter((t) => t === 7)).toHaveLength(3);
    for (const at of offsets.slice(1)) expect((row!.response_mask as number[])[at - (row!.prompt_ids as number[]).length]).toBe(0);
  });

  it('writes --images files beside the export, once per distinct image, named by hash, paths relative to the export', async () => {
    run = await RecordedRun.create({ k: 2 });
    const shots = [shot('a'), shot('b')];
    for (const index of [0, 1]) await guiEpisode(await run.rollout('press-button', index, index), shots); // the same screenshots twice
    const out = path.join(run.dir, 'export', 'train.jsonl');
    const report = await exportRun(run.dir, { format: 'verl', out, images: 'files' });
    expect(report.imagesDir).toBe(path.join(run.dir, 'export', 'train.images'));
    expect(readdirSync(report.imagesDir!).sort()).toEqual(shots.map((s) => `${sha(s)}.png`).sort());
    const rows = readJsonl(out);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(imagesOf(row).map((i) => i.image)).toEqual(shots.map((s) => `train.images/${sha(s)}.png`));
      expect(imagesOf(row).map((i) => bytesOf(i, path.dirname(out)))).toEqual(shots);
    }
    // the same rows as inline but for where the bytes are
    const inline = readJsonl((await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'inline.jsonl') })).file);
    const withoutImage = (rows: Record<string, unknown>[]) =>
      rows.map((r) => ({ ...r, multi_modal_data: imagesOf(r).map((i) => ({ sha256: i.sha256, token_offset: i.token_offset })) }));
    expect(withoutImage(rows)).toEqual(withoutImage(inline));
  });

  it('writes the same images in Parquet as in JSONL, with worker threads as in one', async () => {
    run = await RecordedRun.create({ k: 3 });
    for (const index of [0, 1, 2]) await guiEpisode(await run.rollout('press-button', index, 1), [shot(`x${index}`), shot(`y${index}`)]);
    const jsonl = readJsonl((await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'a.jsonl'), workers: 0 })).file);
    const parallelFile = (await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'b.jsonl'), workers: 2, batchCalls: 3 })).file;
    expect(readFileSync(parallelFile).equals(readFileSync(path.join(run.dir, 'a.jsonl')))).toBe(true);
    const parquetFile = (await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'c.parquet') })).file;
    const parquet = await parquetReadObjects({ file: await asyncBufferFromFile(parquetFile) });
    expect(parquet.map((r) => r.multi_modal_data)).toEqual(jsonl.map((r) => r.multi_modal_data));
    // files mode through the workers names the same files as one thread does
    const filesOut = path.join(run.dir, 'f', 'w.jsonl');
    await exportRun(run.dir, { format: 'verl', out: filesOut, images: 'files', workers: 2, batchCalls: 3 });
    expect(readdirSync(path.join(run.dir, 'f', 'w.images'))).toHaveLength(6);
    expect(readdirSync(path.join(run.dir, 'f')).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it("gives the rollout service's samples the rows the export writes, row for row, images inline", async () => {
    run = await RecordedRun.create();
    await guiEpisode(await run.rollout('press-button', 0, 1), [shot('a'), shot('b')]);
    const exported = readJsonl((await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'v.jsonl') })).file);
    const rollout = (await run.store.currentRollouts(run.runId))[0]!;
    const online = await samplesForService(run.store, rollout.id, { weightVersion: null, simulated: true });
    expect(JSON.parse(JSON.stringify(online))).toEqual(exported);
  });

  it('fails the export naming the call when the tokens hold another number of placeholders than the request shows images', async () => {
    run = await RecordedRun.create();
    const rollout = await run.rollout('press-button', 0, 1);
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: dataUrl(shot('a')) } },
          { type: 'image_url', image_url: { url: dataUrl(shot('b')) } },
        ],
      },
    ];
    // rendered as if the request showed one image
    await rollout.call(messages, finalAnswer('x'), { promptIds: renderPrompt([{ role: 'user', content: [messages[0]!.content![0] as never] }]) });
    await expect(exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'v.jsonl') })).rejects.toThrow(
      /rollout run-test\.press-button\.0\.1, call seq 1: its request shows 2 image\(s\), but the sample's token ids hold 1 image placeholder\(s\)/,
    );
    const skipped = await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'v.jsonl'), skipBad: true });
    expect(skipped.skipped.corrupt).toHaveLength(1);
  });

  it("reads Qwen-VL's placeholders too, leaves offsets unset where the tokens hold none it knows, and refuses an unknown --images", async () => {
    run = await RecordedRun.create({ upstream: 'http://vllm.test:8000/v1' });
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: dataUrl(shot('a')) } },
          { type: 'image_url', image_url: { url: dataUrl(shot('b')) } },
        ],
      },
    ];
    // Qwen2.5-VL as vLLM returns it: <|vision_start|>, <|image_pad|> × patches, <|vision_end|>
    const qwen = [151644, 872, 198, 151652, 151655, 151655, 151655, 151653, 151652, 151655, 151653, 151645];
    await (await run.rollout('qwen', 0, 1)).call(messages, finalAnswer('ok'), { promptIds: qwen });
    await (await run.rollout('other', 0, 1)).call(messages, finalAnswer('ok'), { promptIds: [100, 101, 102] });
    const rows = readJsonl((await exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'v.jsonl') })).file);
    expect(Object.fromEntries(rows.map((r) => [r.uid, imagesOf(r).map((i) => i.token_offset)]))).toEqual({ qwen: [3, 8], other: [null, null] });
    await expect(exportRun(run.dir, { format: 'verl', out: path.join(run.dir, 'w.jsonl'), images: 'refs' as never })).rejects.toThrow(
      /--images refs .*--images inline .* --images files/s,
    );
  });
});
