import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../../src/config/task.js';
import { MANIFEST, harborImporter } from '../../../src/importers/harbor/index.js';

const TB = path.resolve('test/fixtures/terminal-bench-2');
const REGISTRY = path.join(TB, 'registry.json');
const HERE = ['cancel-async-tasks', 'git-leak-recovery', 'log-summary-date-ranges', 'openssl-selfsigned-cert', 'regex-log', 'sqlite-db-truncate'];
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'of-harbor-'));

describe('openforge tasks import --from harbor', () => {
  it("writes terminal-bench@2.0's tasks found in the checkout unchanged, pins git URL and commit, and names every other task with why", async () => {
    const out = tmp();
    const report = await harborImporter.import(REGISTRY, out, { dataset: 'terminal-bench@2.0', checkout: TB });
    expect(report.written.map((w) => path.basename(w)).sort()).toEqual(HERE);
    expect(report.skipped).toHaveLength(89 - HERE.length);
    expect(report.skipped.find((s) => s.id === 'fix-git')?.cause).toMatch(
      /not in the checkout: .*fix-git holds no task\.toml.*laude-institute\/terminal-bench-2\.git path fix-git/,
    );
    for (const name of HERE) {
      for (const f of ['task.toml', 'instruction.md', 'tests/test.sh', 'solution/solve.sh', 'environment/Dockerfile']) {
        expect(readFileSync(path.join(out, name, f))).toEqual(readFileSync(path.join(TB, name, f)));
      }
    }
    const manifest = JSON.parse(readFileSync(path.join(out, MANIFEST), 'utf8'));
    expect(manifest).toMatchObject({ dataset: 'terminal-bench', version: '2.0' });
    expect(manifest.tasks[0]).toEqual({
      name: 'cancel-async-tasks',
      git_url: 'https://github.com/laude-institute/terminal-bench-2.git',
      git_commit_id: '69671fbaac6d67a7ef0dfec016cc38a64ef7a77c',
      path: 'cancel-async-tasks',
      checkout_verified: false,
    });
    const tasks = loadTasks(out);
    expect(tasks.map((t) => t.id)).toEqual(HERE);
    // Harbor's older size keys are read: memory = "2G"
    expect(tasks[0]!.config.environment.memory_mb).toBe(2048);
  });

  it('refuses a checkout at another commit than the dataset pins', async () => {
    const checkout = tmp();
    cpSync(path.join(TB, 'regex-log'), path.join(checkout, 'regex-log'), { recursive: true });
    for (const args of [
      ['init', '-q'],
      ['add', '.'],
      ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'x'],
    ]) {
      expect(spawnSync('git', ['-C', checkout, ...args]).status).toBe(0);
    }
    const report = await harborImporter.import(REGISTRY, tmp(), { dataset: 'terminal-bench@2.0', checkout });
    expect(report.written).toEqual([]);
    expect(report.skipped.find((s) => s.id === 'regex-log')?.cause).toMatch(
      /the checkout is at [0-9a-f]{40}, the dataset pins 69671fbaac6d67a7ef0dfec016cc38a64ef7a77c/,
    );
  });

  it('says what to pass when the registry holds several datasets or no checkout is given', async () => {
    await expect(harborImporter.import(REGISTRY, tmp())).rejects.toThrow(
      /holds 3 datasets[\s\S]*--dataset: hello-world@1\.0, terminal-bench@2\.0, terminal-bench-sample@2\.0/,
    );
    await expect(harborImporter.import(REGISTRY, tmp(), { dataset: 'terminal-bench@9' })).rejects.toThrow(/no dataset terminal-bench@9/);
    await expect(harborImporter.import(REGISTRY, tmp(), { dataset: 'terminal-bench@2.0' })).rejects.toThrow(/--checkout DIR/);
  });

  it('copies a dataset folder of Harbor tasks as it is', async () => {
    const out = tmp();
    const report = await harborImporter.import(TB, out);
    expect(report.written.map((w) => path.basename(w)).sort()).toEqual(HERE);
    expect(existsSync(path.join(out, MANIFEST))).toBe(true);
    expect(readdirSync(out).sort()).toEqual([...HERE, MANIFEST].sort());
  });
});
