import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../src/config/task.js';
import type { TaskValidation } from '../../src/rollout/validate.js';

/**
 * Desktop tasks end to end through the CLI, as a user runs them: the real desktop image and its apps.
 * One `openforge tasks validate` (reference solutions score 1, nothing done scores 0) over a LibreOffice task of
 * desktop-basic and the OSWorld tasks imported from the published JSONs whose references are shell steps, and
 * `openforge run` with forge-gui-agent under sim:oracle at concurrency 2 on two quick tasks and on the imported
 * tasks with reference actions. The whole suite takes long on 2 cores: its validation and run are measured in
 * docs/desktop.md, not here.
 */
const CLI = path.resolve('bin/openforge.js');
const SUITE = path.resolve('envs/desktop-basic');
const VALIDATED = ['calc-rename-header'];
/** The quickest apps (a terminal, the editor). */
const RUN = ['terminal-count-lines', 'editor-append-line'];

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

/** The fixture's OSWorld tasks imported as a user does, with the stand-in downloads and the reference actions written for four of them. */
function importOsworld(): string {
  const imported = mkdtempSync(path.join(os.tmpdir(), 'of-osworld-tasks-'));
  const res = cli(
    [
      'tasks',
      'import',
      '--from',
      'osworld',
      'test/fixtures/osworld/examples',
      '--out',
      imported,
      '--cache',
      'test/fixtures/osworld/stand-in-cache',
      '--actions',
      'test/fixtures/osworld/reference-actions',
    ],
    60_000,
  );
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/^imported 12 osworld tasks/);
  expect(res.stdout).toMatch(/needs network: \d+/);
  expect(res.stdout).toMatch(/unsupported metric: \d+/);
  const ids = readdirSync(imported);
  expect(ids).toHaveLength(12);
  for (const app of ['calc', 'writer', 'gimp', 'chrome'])
    expect(
      ids.some((id) => id.includes(app)),
      app,
    ).toBe(true);
  return imported;
}

/** `openforge run` with forge-gui-agent under sim:oracle at concurrency 2 over the tasks of a folder. */
function runGuiAgent(dir: string): { tasks: { taskId: string; rewards: number[] }[] } {
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
  return JSON.parse(res.stdout) as { tasks: { taskId: string; rewards: number[] }[] };
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

  // Every imported task runs once: those with GUI reference actions under forge-gui-agent (below), the rest here,
  // where their reference solutions (a file put in place, a settings state written) are shell steps.
  it('validates with OSWorld tasks imported from the published JSONs (12 import with the stand-in cache and run offline: LibreOffice, GIMP, Chromium): 1 with the reference solution, 0 with nothing done', () => {
    const imported = importOsworld();
    const osworld = readdirSync(imported).filter((id) => !existsSync(path.join(imported, id, 'solution/actions.json')));
    expect(osworld.length).toBeGreaterThanOrEqual(5);
    const dir = subsetSuite(VALIDATED);
    for (const id of osworld) cpSync(path.join(imported, id), path.join(dir, id), { recursive: true, verbatimSymlinks: true });
    const res = cli(['tasks', 'validate', dir, '-c', '2', '--json'], 3_000_000);
    const results = JSON.parse(res.stdout || '[]') as TaskValidation[];
    expect(results.map((r) => r.taskId).sort(), res.stderr).toEqual([...VALIDATED, ...osworld].sort());
    for (const r of results) expect(r, `${r.taskId}: ${r.problem}`).toMatchObject({ ok: true, oracleReward: 1, nopReward: 0 });
    expect(res.code, res.stderr).toBe(0);
  }, 3_000_000);

  it('forge-gui-agent under sim:oracle scores 1 on the imported OSWorld tasks with reference actions (Chromium settings, GIMP preferences, infeasible tasks given up with FAIL), at concurrency 2', () => {
    const imported = importOsworld();
    const withActions = readdirSync(imported).filter((id) => existsSync(path.join(imported, id, 'solution/actions.json')));
    const givesUp = (id: string) =>
      (JSON.parse(readFileSync(path.join(imported, id, 'solution/actions.json'), 'utf8')) as { type: string }[]).some((a) => a.type === 'fail');
    expect(withActions.filter((id) => id.includes('chrome') && !givesUp(id)).length).toBeGreaterThanOrEqual(3);
    expect(withActions.some((id) => id.includes('gimp'))).toBe(true);
    expect(withActions.filter(givesUp).length).toBeGreaterThanOrEqual(2);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-osworld-run-'));
    for (const id of withActions) cpSync(path.join(imported, id), path.join(dir, id), { recursive: true });
    const summary = runGuiAgent(dir);
    expect(summary.tasks.map((t) => [t.taskId, t.rewards])).toEqual([...withActions].sort().map((id) => [id, [1]]));
  }, 3_000_000);

  it('forge-gui-agent under sim:oracle scores 1 on each, at concurrency 2', () => {
    const summary = runGuiAgent(subsetSuite(RUN));
    expect(summary.tasks.map((t) => [t.taskId, t.rewards])).toEqual([...RUN].sort().map((id) => [id, [1]]));
  }, 3_000_000);
});
