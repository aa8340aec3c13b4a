import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../../src/config/task.js';
import { pinchbenchImporter, qwenclawbenchImporter } from '../../../src/importers/claw-md/index.js';

const PINCH = path.resolve('test/fixtures/pinchbench');
const QWEN = path.resolve('test/fixtures/qwenclawbench');
const QWEN_TASKS = path.join(QWEN, 'data/qwenclawbench-v1.1-100/tasks');
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'of-clawmd-'));
const grading = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'tests', 'grading.json'), 'utf8'));

describe('openforge tasks import --from pinchbench', () => {
  it('writes each task in Harbor layout with its grade() byte for byte, and names the multi-session task it leaves out', async () => {
    const out = tmp();
    const report = await pinchbenchImporter.import(PINCH, out);
    expect(report.written).toHaveLength(9);
    expect(report.skipped).toEqual([{ id: 'task_22_second_brain', cause: expect.stringMatching(/multi-session task/) }]);
    const tasks = loadTasks(out);
    expect(tasks.map((t) => t.id)).toContain('task_09_files');
    const files = path.join(out, 'task_09_files');
    const source = readFileSync(path.join(PINCH, 'tasks', 'task_09_files.md'), 'utf8');
    const code = readFileSync(path.join(files, 'tests', 'automated_checks.py'), 'utf8');
    expect(source).toContain(code.trimEnd());
    expect(code).toMatch(/^def grade\(transcript: list, workspace_path: str\) -> dict:/);
    expect(readFileSync(path.join(files, 'instruction.md'), 'utf8')).toMatch(/^Create a project structure with: src\/ directory/);
    // inline workspace files and assets of the checkout, under the task's workspace (task_19_spreadsheet_summary.md says id: task_18_…)
    expect(readFileSync(path.join(out, 'task_08_memory', 'environment', 'workspace', 'notes.md'), 'utf8')).toMatch(/^# Project Phoenix/);
    expect(readFileSync(path.join(out, 'task_18_spreadsheet_summary', 'environment', 'workspace', 'company_expenses.xlsx'))).toEqual(
      readFileSync(path.join(PINCH, 'assets', 'company_expenses.xlsx')),
    );
    expect(readdirSync(path.join(out, 'task_16_email_triage', 'environment', 'workspace', 'inbox'))).toHaveLength(13);
    // PinchBench's weights, its default 0.5/0.5, and no gate on the judge
    expect(grading(path.join(out, 'task_16_email_triage'))).toMatchObject({
      grading_type: 'hybrid',
      weights: { automated: 0.4, llm_judge: 0.6 },
      judge_gate: null,
    });
    expect(grading(path.join(out, 'task_10_workflow')).weights).toEqual({ automated: 0.5, llm_judge: 0.5 });
    expect(existsSync(path.join(out, 'task_03_blog', 'tests', 'automated_checks.py'))).toBe(false);
    expect(grading(path.join(out, 'task_03_blog')).rubric).toMatch(/\S/);
  });
});

describe('openforge tasks import --from qwenclawbench', () => {
  it('finds the tasks of the data/<version>/ folder, their per-task assets, and the 0.75 gate on the judge', async () => {
    const out = tmp();
    const report = await qwenclawbenchImporter.import(QWEN, out);
    expect(report.skipped).toEqual([]);
    expect(report.written).toHaveLength(10);
    const largest = path.join(out, 'task_00036_find_largest_file_in_downloads_directory');
    expect(readFileSync(path.join(largest, 'environment', 'workspace', 'downloads', 'server_access.log'))).toEqual(
      readFileSync(path.join(QWEN, 'data/qwenclawbench-v1.1-100/assets/task_00036_find_largest_file_in_downloads_directory/downloads/server_access.log')),
    );
    expect(grading(largest)).toMatchObject({ grading_type: 'automated', judge_gate: 0.75 });
    // the runner ignores a weight key it does not know: `llm` and `llmjudge` leave the judge's weight at 0.5
    expect(grading(path.join(out, 'task_00035_delete_installed_skill_directory_with_verification')).weights).toEqual({ automated: 0.7, llm_judge: 0.5 });
    expect(grading(path.join(out, 'task_00059_user_discount_calculator')).weights).toEqual({ automated: 0.7, llm_judge: 0.5 });
    expect(readdirSync(QWEN_TASKS)).toHaveLength(10);
  });

  it('names the tasks it cannot bring, by cause', async () => {
    const report = await qwenclawbenchImporter.import(path.resolve('test/fixtures/claw-md-unsupported'), tmp());
    expect(report.written).toEqual([]);
    expect(report.skipped.map((s) => [s.id, s.cause])).toEqual([
      ['needs-image', expect.stringMatching(/needs text-image input/)],
      ['needs-media', expect.stringMatching(/its workspace file clip\.mp4 is not in the checkout/)],
      ['needs-web', expect.stringMatching(/needs live web access/)],
    ]);
  });
});
