import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { importerNamed } from '../../../src/importers/registry.js';

/** OSWorld's published task JSONs (test/fixtures/osworld/examples, copied unchanged; PROVENANCE.md says from where). */
const EXAMPLES = path.resolve('test/fixtures/osworld/examples');
const CACHE = path.resolve('test/fixtures/osworld/stand-in-cache');
/** Reference actions written for four fixture tasks (not OSWorld's: it publishes none). */
const ACTIONS = path.resolve('test/fixtures/osworld/reference-actions');
/** The fixture's supported tasks that download nothing: they import without a cache. */
const DOWNLOAD_NOTHING = [
  'osworld-chrome-030eeff7',
  'osworld-chrome-2ae9ba84',
  'osworld-chrome-3720f614',
  'osworld-chrome-af630914',
  'osworld-chrome-bb5e4c0d',
  'osworld-gimp-7b7617bd',
];
const out = mkdtempSync(path.join(os.tmpdir(), 'of-osworld-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('openforge tasks import --from osworld', () => {
  it('the fixture holds ≥ 30 published tasks across domains', () => {
    const domains = readdirSync(EXAMPLES);
    const tasks = domains.flatMap((d) => readdirSync(path.join(EXAMPLES, d)));
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    expect(domains.length).toBeGreaterThanOrEqual(8);
  });

  it('without a cache: tasks that download are named as needing network; the rest by unsupported getter, metric, setup or app', async () => {
    const report = await importerNamed('osworld').import(EXAMPLES, path.join(out, 'no-cache'));
    expect(report.written.map((d) => path.basename(d))).toEqual(DOWNLOAD_NOTHING);
    const byCategory = (c: string) => report.skipped.filter((s) => s.category === c).map((s) => s.id);
    expect(byCategory('needs network')).toContain('libreoffice_calc/1273e544-688f-496b-8d89-3e0f40aa0606');
    expect(byCategory('needs network')).toContain('multi_apps/2373b66a-092d-44cb-bfd7-82e86e7a3b4d');
    // websites count as needing network before any metric is looked at
    expect(byCategory('needs network')).toContain('chrome/e1e75309-3ddb-4d09-92ec-de869c928143');
    expect(byCategory('unsupported setup')).toContain('multi_apps/f8369178-fafe-40c2-adc4-b9b08a125456');
    expect(byCategory('unsupported metric')).toContain('vlc/bba3381f-b5eb-4439-bd9e-80c22218d5a7');
    expect(byCategory('unsupported getter')).toContain('multi_apps/5990457f-2adb-467b-a4af-5c857c92d762');
    // a metric the module has but would score more leniently than OSWorld is left out, saying why
    expect(report.skipped.find((s) => s.id === 'libreoffice_impress/a097acff-6266-4291-9fbd-137af7ecd439')).toMatchObject({
      category: 'unsupported metric',
      cause: expect.stringMatching(/^metric compare_pptx_files: the module compares slide text only; OSWorld's also compares/),
    });
    expect(report.skipped.map((s) => s.category).sort()).toEqual([
      ...Array(16).fill('needs network'),
      'unsupported getter',
      ...Array(16).fill('unsupported metric'),
      ...Array(3).fill('unsupported setup'),
    ]);
    expect(report.written.length + report.skipped.length).toBe(42);
  });

  it('with a cache: the supported tasks import as desktop tasks that carry their files and their JSON unchanged', async () => {
    const report = await importerNamed('osworld').import(EXAMPLES, path.join(out, 'cached'), { cache: CACHE });
    const names = report.written.map((d) => path.basename(d)).sort();
    expect(names).toEqual([
      ...DOWNLOAD_NOTHING,
      'osworld-libreoffice-calc-1273e544',
      'osworld-libreoffice-calc-2bd59342',
      'osworld-libreoffice-calc-3aaa4e37',
      'osworld-libreoffice-writer-0b17a146',
      'osworld-libreoffice-writer-0e763496',
      'osworld-libreoffice-writer-f178a4a9',
    ]);
    expect(report.skipped.filter((s) => s.category === 'needs network')).toHaveLength(10);
    const dir = report.written.find((d) => d.endsWith('calc-1273e544'))!;
    const task = loadTask(dir);
    expect(task.config.environment.kind).toBe('desktop');
    expect(task.config.environment.desktop).toMatchObject({ launch: ['libreoffice --norestore /root/NetIncome.xlsx'], wait_for_window: 'NetIncome.xlsx' });
    const source = readFileSync(path.join(EXAMPLES, 'libreoffice_calc/1273e544-688f-496b-8d89-3e0f40aa0606.json'));
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(hash(readFileSync(path.join(dir, 'tests/task.json')))).toBe(hash(source));
    expect(readFileSync(path.join(dir, 'environment/Dockerfile'), 'utf8')).toContain('COPY ["files/0-NetIncome.xlsx","/root/NetIncome.xlsx"]');
    expect(existsSync(path.join(dir, 'tests/cache/3_NetIncome_gt1.xlsx'))).toBe(true);
    expect(readFileSync(path.join(dir, 'solution/solve.sh'), 'utf8')).toContain('/root/NetIncome.xlsx');
    // an infeasible task's reference is the FAIL action
    const infeasible = report.written.find((d) => d.endsWith('chrome-3720f614'))!;
    expect(JSON.parse(readFileSync(path.join(infeasible, 'solution/actions.json'), 'utf8'))).toEqual([{ type: 'fail', reason: 'the task cannot be done' }]);
  });

  it('Chrome tasks run Chromium with its debugging port and no socat bridge; settings tasks get the end state their rule spells out as reference', async () => {
    const report = await importerNamed('osworld').import(EXAMPLES, path.join(out, 'settings'), { cache: CACHE });
    const chrome = loadTask(report.written.find((d) => d.endsWith('chrome-030eeff7'))!);
    expect(chrome.config.environment.desktop).toMatchObject({
      launch: ['chromium --no-sandbox --no-first-run --password-store=basic --remote-debugging-port=1337'],
      wait_for_window: 'Chromium',
    });
    const solve = readFileSync(path.join(chrome.dir, 'solution/solve.sh'), 'utf8');
    expect(solve).toContain('pkill -9 chromium');
    expect(solve).toContain('python3 -m osworld_eval.reference /solution/task.json');
    expect(readFileSync(path.join(chrome.dir, 'solution/task.json'), 'utf8')).toBe(
      readFileSync(path.join(EXAMPLES, 'chrome/030eeff7-b492-4218-b312-701ec99ee0cc.json'), 'utf8'),
    );
    const gimp = report.written.find((d) => d.endsWith('gimp-7b7617bd'))!;
    expect(loadTask(gimp).config.environment.desktop?.launch).toEqual(['gimp']);
    expect(readFileSync(path.join(gimp, 'solution/solve.sh'), 'utf8')).toContain('pkill -9 gimp');
    // a font rule on a document: the reference state, written after LibreOffice is stopped
    expect(
      readFileSync(
        path.join(
          report.written.find((d) => d.endsWith('writer-0e763496'))!,
          'solution/solve.sh',
        ),
        'utf8',
      ),
    ).toContain('pkill -9 soffice.bin');
  });

  it('carries postconfig downloads from the cache for the evaluator to put in place, and names them as needing network without it', async () => {
    // the shape of OSWorld's os tasks that fetch an eval.sh after the episode (os/5c1075ca and others)
    const url = 'https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/os/0000/eval%20it.sh';
    const src = path.join(out, 'postconfig-src/os');
    mkdirSync(src, { recursive: true });
    writeFileSync(
      path.join(src, 'pc.json'),
      JSON.stringify({
        id: 'pc000000-0000',
        instruction: 'Make a folder named done in the home folder.',
        config: [],
        evaluator: {
          postconfig: [{ type: 'download', parameters: { files: [{ url, path: 'eval.sh' }] } }],
          func: 'check_include_exclude',
          result: { type: 'vm_command_line', command: 'bash eval.sh', shell: true },
          expected: { type: 'rule', rules: { include: ['ok'], exclude: [] } },
        },
      }),
    );
    const none = await importerNamed('osworld').import(path.dirname(src), path.join(out, 'pc-none'));
    expect(none.skipped).toEqual([{ id: 'os/pc000000-0000', cause: `postconfig download ${url}`, category: 'needs network' }]);
    const cache = path.join(out, 'pc-cache');
    mkdirSync(cache, { recursive: true });
    writeFileSync(path.join(cache, 'eval it.sh'), 'test -d /root/done && echo ok\n');
    const report = await importerNamed('osworld').import(path.dirname(src), path.join(out, 'pc-out'), { cache });
    expect(readFileSync(path.join(report.written[0]!, 'tests/cache/postconfig-eval it.sh'), 'utf8')).toContain('test -d /root/done');
  });

  it('reference actions written for a task (--actions) become its solution, replayed through the env server', async () => {
    const report = await importerNamed('osworld').import(EXAMPLES, path.join(out, 'actions'), { cache: CACHE, actions: ACTIONS });
    const gimp = report.written.find((d) => d.endsWith('gimp-7b7617bd'))!;
    const actions = JSON.parse(readFileSync(path.join(gimp, 'solution/actions.json'), 'utf8')) as { type: string }[];
    expect(actions).toEqual(JSON.parse(readFileSync(path.join(ACTIONS, 'gimp/7b7617bd-57cc-468e-9c91-40c4ec2bcb3d.json'), 'utf8')));
    expect(actions.at(-1)).toEqual({ type: 'done' });
    expect(readFileSync(path.join(gimp, 'solution/solve.sh'), 'utf8')).toContain('/solution/actions.json');
    expect(existsSync(path.join(gimp, 'solution/task.json'))).toBe(false);
    // a task without written actions keeps the reference its evaluator implies
    expect(
      existsSync(
        path.join(
          report.written.find((d) => d.endsWith('writer-f178a4a9'))!,
          'solution/task.json',
        ),
      ),
    ).toBe(true);
    const bad = path.join(out, 'bad-actions/gimp');
    mkdirSync(bad, { recursive: true });
    writeFileSync(path.join(bad, '7b7617bd-57cc-468e-9c91-40c4ec2bcb3d.json'), '{"type": "done"}');
    await expect(importerNamed('osworld').import(EXAMPLES, path.join(out, 'bad'), { actions: path.dirname(bad) })).rejects.toThrow(/not a list of actions/);
    writeFileSync(path.join(bad, '7b7617bd-57cc-468e-9c91-40c4ec2bcb3d.json'), '[{"type": "wait", "ms": 1000, "until": ""}]');
    await expect(importerNamed('osworld').import(EXAMPLES, path.join(out, 'bad'), { actions: path.dirname(bad) })).rejects.toThrow(
      /action 1 .* is not a canonical action/,
    );
  });

  it('says what is wrong with a bad source', async () => {
    await expect(importerNamed('osworld').import(path.join(out, 'nowhere'), out)).rejects.toThrow(/not a folder/);
    await expect(importerNamed('osworld').import(EXAMPLES, out, { cache: path.join(out, 'no-such-cache') })).rejects.toThrow(/cache folder/);
    await expect(importerNamed('osworld').import(EXAMPLES, out, { actions: path.join(out, 'no-such-actions') })).rejects.toThrow(/actions folder/);
  });
});
