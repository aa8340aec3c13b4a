import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { importerNamed } from '../../../src/importers/registry.js';

/** OSWorld's published task JSONs (test/fixtures/osworld/examples, copied unchanged; PROVENANCE.md says from where). */
const EXAMPLES = path.resolve('test/fixtures/osworld/examples');
const CACHE = path.resolve('test/fixtures/osworld/stand-in-cache');
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
    expect(report.written.map((d) => path.basename(d))).toEqual(['osworld-chrome-3720f614']);
    const byCategory = (c: string) => report.skipped.filter((s) => s.category === c).map((s) => s.id);
    expect(byCategory('needs network')).toContain('libreoffice_calc/1273e544-688f-496b-8d89-3e0f40aa0606');
    expect(byCategory('needs network')).toContain('multi_apps/2373b66a-092d-44cb-bfd7-82e86e7a3b4d');
    expect(byCategory('unsupported metric')).toContain('vlc/bba3381f-b5eb-4439-bd9e-80c22218d5a7');
    expect(byCategory('unsupported getter')).toContain('multi_apps/5990457f-2adb-467b-a4af-5c857c92d762');
    expect(report.written.length + report.skipped.length).toBe(38);
  });

  it('with a cache: the supported tasks import as desktop tasks that carry their files and their JSON unchanged', async () => {
    const report = await importerNamed('osworld').import(EXAMPLES, path.join(out, 'cached'), { cache: CACHE });
    const names = report.written.map((d) => path.basename(d)).sort();
    expect(names).toEqual([
      'osworld-chrome-3720f614',
      'osworld-libreoffice-calc-1273e544',
      'osworld-libreoffice-calc-2bd59342',
      'osworld-libreoffice-calc-3aaa4e37',
      'osworld-libreoffice-writer-0b17a146',
    ]);
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

  it('says what is wrong with a bad source', async () => {
    await expect(importerNamed('osworld').import(path.join(out, 'nowhere'), out)).rejects.toThrow(/not a folder/);
    await expect(importerNamed('osworld').import(EXAMPLES, out, { cache: path.join(out, 'no-such-cache') })).rejects.toThrow(/cache folder/);
  });
});
