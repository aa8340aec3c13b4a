import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveUrl } from '../helpers/serve-url.js';
import { buildTaskImages } from '../helpers/task-images.js';

/**
 * Screenshots reach the trainer: browser-basic tasks run by forge-gui-agent under sim:oracle through the real
 * rollout service (`openforge serve`, real Chromium in the browser image); the samples the service answers with
 * (online) and the rows `openforge export --format verl` writes of the same rollouts (offline, `--images inline`
 * and `--images files`) must agree row for row, image bytes included, and so must what the AgentLoop's conversion
 * (`openforge_verl`, Python) makes of each.
 */
const CLI = path.resolve('bin/openforge.js');
const SUITE = path.resolve('envs/browser-basic');
const TASK_IDS = ['scroll-long-page', 'modal-dialog'];
const TOKEN = 'verl-images-test-token-0123456789';
let server: ChildProcess;
let base: string;
let out: string;

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  await buildTaskImages(SUITE, TASK_IDS);
  out = mkdtempSync(path.join(os.tmpdir(), 'of-verl-images-'));
  writeFileSync(path.join(out, 'token'), `${TOKEN}\n`);
  // one Chromium at a time: two cold starts at once on a loaded machine can miss the env server's launch deadline
  server = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--config',
      path.join(SUITE, 'run.yaml'),
      '--concurrency',
      '1',
      '--output',
      path.join(out, 'svc'),
      '--token-file',
      path.join(out, 'token'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  base = await serveUrl(server);
}, 1_800_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  if (out) rmSync(out, { recursive: true, force: true });
});

interface Row {
  rollout_id: string;
  segment: number;
  prompt_ids: number[];
  response_ids: number[];
  multi_modal_data: { image: { image: string; sha256: string | null; token_offset: number | null }[] } | null;
  [field: string]: unknown;
}

function readJsonl(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
}

const order = (a: Row, b: Row) => a.rollout_id.localeCompare(b.rollout_id) || a.segment - b.segment;

function exportCli(runId: string, file: string, images: string): void {
  const res = spawnSync(
    process.execPath,
    [CLI, 'export', path.join(out, 'svc'), '--run', runId, '--allow-running', '--format', 'verl', '--images', images, '--out', file],
    {
      encoding: 'utf8',
    },
  );
  expect(res.status, res.stderr).toBe(0);
}

describe('veRL samples with images, online and offline (browser-basic, forge-gui-agent, sim:oracle)', () => {
  it('agree row for row, image bytes included, each image at its placeholder', async () => {
    const submitted = await api('POST', '/v1/rollouts', { tasks: SUITE, task_ids: TASK_IDS, harness: 'forge-gui-agent', upstream: 'sim:oracle', n: 1 });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(202);
    const views: any[] = [];
    for (const id of submitted.json.ids as string[]) {
      let view = (await api('GET', `/v1/rollouts/${id}?wait=60`)).json;
      while (view.status === 'queued' || view.status === 'running') view = (await api('GET', `/v1/rollouts/${id}?wait=60`)).json;
      expect([view.status, view.reward, view.error_message]).toEqual(['finished', 1, null]);
      views.push(view);
    }
    const online = views.flatMap((v) => v.samples as Row[]).sort(order);
    const runId = (await api('GET', '/health')).json.run_id as string;

    const inlineFile = path.join(out, 'inline', 'verl.jsonl');
    const filesFile = path.join(out, 'files', 'verl.jsonl');
    exportCli(runId, inlineFile, 'inline');
    exportCli(runId, filesFile, 'files');
    const inline = readJsonl(inlineFile).sort(order);
    const files = readJsonl(filesFile).sort(order);

    // online = offline, row for row, every field (the images as base64 data URLs)
    expect(online.length).toBeGreaterThanOrEqual(TASK_IDS.length);
    expect(inline).toEqual(online);
    let images = 0;
    for (const [i, row] of online.entries()) {
      const tokens = [...row.prompt_ids, ...row.response_ids];
      const shown = row.multi_modal_data?.image ?? [];
      expect(shown.length, `${row.rollout_id}#${row.segment} carries its screenshots`).toBeGreaterThanOrEqual(1);
      // as many placeholders as images, each image at its own, in order
      expect(tokens.filter((t) => t === 7)).toHaveLength(shown.length);
      for (const [n, image] of shown.entries()) {
        const bytes = Buffer.from(image.image.slice(image.image.indexOf(',') + 1), 'base64');
        expect(image.image.startsWith('data:image/png;base64,')).toBe(true);
        expect(bytes.subarray(1, 4).toString()).toBe('PNG'); // a real screenshot
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(image.sha256);
        expect(tokens.slice(image.token_offset!, image.token_offset! + 18)).toEqual([7, ...Array(16).fill(8), 9]);
        if (n > 0) expect(image.token_offset!).toBeGreaterThan(shown[n - 1]!.token_offset!);
        // --images files: the same row with a path beside the export, the file holding the same bytes
        const asFile = files[i]!.multi_modal_data!.image[n]!;
        expect(asFile).toEqual({ ...image, image: `verl.images/${image.sha256}.png` });
        expect(readFileSync(path.join(path.dirname(filesFile), asFile.image)).equals(bytes)).toBe(true);
        images++;
      }
      expect({ ...files[i], multi_modal_data: null }).toEqual({ ...row, multi_modal_data: null });
    }
    // a multi-step task shows a screenshot per step: later ones sit in the response, between the turns
    expect(online.some((r) => (r.multi_modal_data?.image.length ?? 0) >= 3)).toBe(true);

    // what the AgentLoop gives verl (openforge_verl's conversion of the service's rollout views) equals the
    // conversion of the exported rows, inline and from files: the same images, as bytes, in the same order
    writeFileSync(path.join(out, 'views.json'), JSON.stringify(views));
    const script = [
      'import hashlib, json, sys',
      "sys.path.insert(0, 'integrations/verl')",
      'from openforge_verl import outputs_from_export, outputs_from_rollout',
      'views, inline, files = sys.argv[1:4]',
      'key = lambda o: (o["extra_fields"]["rollout_id"], o["extra_fields"]["openforge_segment"])',
      'online = sorted((o for v in json.load(open(views)) for o in outputs_from_rollout(v)), key=key)',
      'def comparable(outputs):',
      '    return [{k: o[k] for k in ("prompt_ids", "response_ids", "response_mask", "response_logprobs", "reward_score", "num_turns")} | {"images": [hashlib.sha256(b).hexdigest() for b in (o["multi_modal_data"] or {}).get("image", [])], "offsets": o["extra_fields"].get("openforge_image_offsets")} for o in sorted(outputs, key=key)]',
      'a, b, c = comparable(online), comparable(outputs_from_export(inline)), comparable(outputs_from_export(files))',
      'print(json.dumps({"rows": len(a), "images": sum(len(o["images"]) for o in a), "inline_equal": a == b, "files_equal": a == c}))',
    ].join('\n');
    const py = spawnSync('python3', ['-c', script, path.join(out, 'views.json'), inlineFile, filesFile], { encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    expect(JSON.parse(py.stdout)).toEqual({ rows: online.length, images, inline_equal: true, files_equal: true });
  }, 600_000);
});
