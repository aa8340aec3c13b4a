import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../src/config/task.js';
import type { TaskValidation } from '../../src/rollout/validate.js';

/**
 * Desktop tasks end to end through the CLI, as a user runs them: the real desktop image and its apps,
 * `openforge tasks validate` (reference actions replayed through the env server score 1, nothing done
 * scores 0) on desktop-basic tasks and on OSWorld tasks imported from the published JSONs, and
 * `openforge run` with forge-gui-agent under sim:oracle at concurrency 2.
 */
const CLI = path.resolve('bin/openforge.js');
const SUITE = path.resolve('envs/desktop-basic');
/** The quickest apps (a terminal, the editor, the file manager) and one LibreOffice task: the whole suite takes long on 2 cores. */
const SUBSET = ['terminal-count-lines', 'editor-append-line', 'files-new-folder', 'calc-rename-header'];

function cli(args: string[], timeoutMs: number): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** A suite folder with only these tasks and the shared kit (their symlinks point into it). */
function subsetSuite(ids: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-desktop-basic-'));
  for (const name of ['_kit', ...ids]) cpSync(path.join(SUITE, name), path.join(dir, name), { recursive: true, verbatimSymlinks: true });
  return dir;
}

describe('the desktop-basic suite', () => {
  it('has ≥ 12 desktop tasks across Calc, Writer, Impress, the file manager, the terminal, a setting and a two-app workflow', () => {
    const tasks = loadTasks(SUITE);
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    for (const t of tasks) {
      expect(t.config.environment.kind).toBe('desktop');
      expect(realpathSync(path.join(t.solutionDir!, 'solve.sh'))).toBe(realpathSync(path.join(SUITE, '_kit/solution/solve.sh')));
    }
    const categories = new Set(tasks.map((t) => (t.config.metadata as { category?: string }).category));
    for (const c of ['spreadsheet', 'document', 'presentation', 'files', 'terminal', 'settings', 'workflow']) expect(categories).toContain(c);
  });

  it('validates: 1 with the reference actions, 0 with nothing done', () => {
    const res = cli(['tasks', 'validate', subsetSuite(SUBSET), '-c', '2', '--json'], 3_000_000);
    const results = JSON.parse(res.stdout || '[]') as TaskValidation[];
    expect(results.map((r) => r.taskId).sort(), res.stderr).toEqual([...SUBSET].sort());
    for (const r of results) expect(r, `${r.taskId}: ${r.problem}`).toMatchObject({ ok: true, oracleReward: 1, nopReward: 0 });
    expect(res.code, res.stderr).toBe(0);
  }, 3_000_000);

  it('forge-gui-agent under sim:oracle scores 1 on each, at concurrency 2', () => {
    const dir = subsetSuite(SUBSET);
    const yaml = path.join(dir, 'run.yaml');
    writeFileSync(
      yaml,
      [
        'tasks: .',
        'harness: forge-gui-agent',
        'model: { upstream: "sim:oracle", name: policy }',
        'concurrency: 2',
        'network: proxy-only',
        'max_turns: 40',
        'resources: { cpus: 1, memory_mb: 2048, pids: 2048 }',
        `output: ${path.join(dir, 'runs')}`,
        '',
      ].join('\n'),
    );
    const res = cli(['run', yaml, '--json'], 3_000_000);
    expect(res.code, res.stderr).toBe(0);
    const summary = JSON.parse(res.stdout) as { tasks: { taskId: string; rewards: number[] }[] };
    expect(summary.tasks.map((t) => [t.taskId, t.rewards])).toEqual([...SUBSET].sort().map((id) => [id, [1]]));
  }, 3_000_000);
});

describe('OSWorld tasks imported from the published JSONs', () => {
  it('≥ 5 import with the stand-in cache, run offline and validate', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'of-osworld-tasks-'));
    const imported = cli(
      ['tasks', 'import', '--from', 'osworld', 'test/fixtures/osworld/examples', '--out', out, '--cache', 'test/fixtures/osworld/stand-in-cache'],
      60_000,
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^imported 5 osworld tasks/);
    expect(imported.stdout).toMatch(/needs network: \d+/);
    expect(imported.stdout).toMatch(/unsupported metric: \d+/);
    expect(readdirSync(out)).toHaveLength(5);
    const res = cli(['tasks', 'validate', out, '-c', '2', '--json'], 3_000_000);
    const results = JSON.parse(res.stdout || '[]') as TaskValidation[];
    expect(results, res.stderr).toHaveLength(5);
    for (const r of results) expect(r, `${r.taskId}: ${r.problem}`).toMatchObject({ ok: true });
    expect(res.code, res.stderr).toBe(0);
  }, 3_000_000);
});
