import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage } from '../../util/errors.js';
import { packageRoot } from '../../util/paths.js';
import type { ImportReport, TaskImporter } from '../types.js';
import { automatedChecks, parseClawMdTask, type ClawMdTask } from './task-file.js';

/** How one benchmark of the PinchBench family lays out its checkout and combines its scores. */
interface Flavour {
  name: 'pinchbench' | 'qwenclawbench';
  /** Folders of the checkout that hold the task files, most specific first. */
  taskDirs(root: string): string[];
  /** Where a workspace file's `source` is found. */
  assetCandidates(root: string, tasksDir: string, task: ClawMdTask, source: string): string[];
  /** QwenClawBench: the judge's share is 0 while the automated score is below this (strict <). */
  judgeGate: number | null;
}

const PINCHBENCH: Flavour = {
  name: 'pinchbench',
  taskDirs: (root) => [path.join(root, 'tasks')],
  assetCandidates: (root, _tasks, _task, source) => [path.join(root, 'assets', source)],
  judgeGate: null,
};

const QWENCLAWBENCH: Flavour = {
  name: 'qwenclawbench',
  taskDirs: (root) => {
    const data = path.join(root, 'data');
    const versions = existsSync(data)
      ? readdirSync(data)
          .filter((d) => existsSync(path.join(data, d, 'tasks')))
          .sort()
          .reverse()
      : [];
    return [...versions.map((v) => path.join(data, v, 'tasks')), path.join(root, 'tasks')];
  },
  assetCandidates: (_root, tasksDir, task, source) => [path.join(tasksDir, '..', 'assets', task.id, source), path.join(tasksDir, '..', 'assets', source)],
  judgeGate: 0.75,
};

/** Dependencies of QwenClawBench's front matter a container here cannot provide, with why. */
const EXTERNAL: Record<string, string> = {
  web: 'needs live web access (external_dependency: web)',
  feishu: 'needs a Feishu account and its API (external_dependency: feishu)',
  requires_mock: 'needs a mock service the benchmark does not ship (external_dependency: requires_mock)',
};

function clawMdImporter(flavour: Flavour, description: string): TaskImporter {
  return {
    name: flavour.name,
    description,
    source: `a ${flavour.name} repository checkout`,
    async import(source: string, outDir: string): Promise<ImportReport> {
      const root = path.resolve(source);
      const tasksDir = flavour.taskDirs(root).find((d) => existsSync(d));
      if (!tasksDir)
        throw new UserError(`${root} holds no tasks folder (looked in ${flavour.taskDirs(root).join(', ')})`, `pass a checkout of ${flavour.name}`);
      const report: ImportReport = { written: [], skipped: [] };
      const adapter = readFileSync(path.join(packageRoot(), 'src/importers/claw-md/grade.py'));
      for (const file of readdirSync(tasksDir)
        .filter((f) => f.endsWith('.md') && f !== 'TASK_TEMPLATE.md')
        .sort()) {
        const full = path.join(tasksDir, file);
        let task: ClawMdTask;
        try {
          task = parseClawMdTask(readFileSync(full, 'utf8'), full);
        } catch (err) {
          report.skipped.push({ id: file, cause: errorMessage(err) });
          continue;
        }
        const cause = unsupported(flavour, root, tasksDir, task);
        if (cause) {
          report.skipped.push({ id: task.id, cause });
          continue;
        }
        report.written.push(writeTask(flavour, root, tasksDir, task, path.resolve(outDir), adapter, path.relative(root, full)));
      }
      return report;
    },
  };
}

function unsupported(flavour: Flavour, root: string, tasksDir: string, task: ClawMdTask): string | undefined {
  if (task.multiSession) return 'a multi-session task (several prompts in sequence), which the benchmark runner itself does not run';
  if (task.externalDependency && EXTERNAL[task.externalDependency]) return EXTERNAL[task.externalDependency];
  if (task.inputModality && task.inputModality !== 'text-only') return `needs ${task.inputModality} input, which the importer does not bring`;
  if (!task.sections.Prompt) return 'no ## Prompt section';
  if (task.gradingType !== 'llm_judge' && !automatedChecks(task)) return `grading_type ${task.gradingType} but no python block under ## Automated Checks`;
  for (const f of task.workspaceFiles) {
    if ('source' in f && !flavour.assetCandidates(root, tasksDir, task, f.source).some((c) => existsSync(c))) {
      return `its workspace file ${f.source} is not in the checkout (media the repository does not hold)`;
    }
  }
  return undefined;
}

function writeTask(flavour: Flavour, root: string, tasksDir: string, task: ClawMdTask, outDir: string, adapter: Buffer, relFile: string): string {
  const dir = path.join(outDir, task.id);
  const env = path.join(dir, 'environment');
  const tests = path.join(dir, 'tests');
  mkdirSync(env, { recursive: true });
  mkdirSync(tests, { recursive: true });
  for (const f of task.workspaceFiles) {
    const dest = path.join(env, 'workspace', 'content' in f ? f.path : f.dest);
    if (!dest.startsWith(path.join(env, 'workspace') + path.sep)) throw new UserError(`${task.id}: workspace file ${dest} leaves the workspace`);
    mkdirSync(path.dirname(dest), { recursive: true });
    if ('content' in f) writeFileSync(dest, f.content);
    else
      copyFileSync(
        flavour.assetCandidates(root, tasksDir, task, f.source).find((c) => existsSync(c) && statSync(c).isFile())!,
        dest,
      );
  }
  const judged = task.gradingType !== 'automated';
  writeFileSync(
    path.join(dir, 'task.toml'),
    [
      'version = "1.0"',
      '',
      '[task]',
      `name = ${JSON.stringify(task.id)}`,
      `description = ${JSON.stringify(task.name)}`,
      '',
      '[metadata]',
      `benchmark = "${flavour.name}"`,
      `source = ${JSON.stringify(relFile)}`,
      `grading_type = "${task.gradingType}"`,
      '',
      '[agent]',
      `timeout_sec = ${task.timeoutSeconds ?? 600}`,
      '',
      '[verifier]',
      `timeout_sec = ${judged ? 600 : 120}`,
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'instruction.md'), task.sections.Prompt! + '\n');
  writeFileSync(path.join(env, 'Dockerfile'), `FROM openforge/workspace\n${task.workspaceFiles.length ? 'COPY workspace/ /workspace/\n' : ''}`);
  writeFileSync(
    path.join(tests, 'test.sh'),
    "#!/bin/bash\n# the benchmark's own checks, through OpenForge's adapter (grade.py)\nexec python3 /tests/grade.py\n",
  );
  writeFileSync(path.join(tests, 'grade.py'), adapter);
  const code = automatedChecks(task);
  if (code !== undefined) writeFileSync(path.join(tests, 'automated_checks.py'), code + '\n');
  const weights = task.gradingWeights ?? {};
  writeFileSync(
    path.join(tests, 'grading.json'),
    JSON.stringify(
      {
        benchmark: flavour.name,
        grading_type: task.gradingType,
        // the runner's defaults: a key it does not know (e.g. a typo) leaves that weight at 0.5
        weights: { automated: numberOr(weights.automated, 0.5), llm_judge: numberOr(weights.llm_judge, 0.5) },
        judge_gate: flavour.judgeGate,
        prompt: task.sections.Prompt,
        expected_behavior: task.sections['Expected Behavior'] ?? '',
        rubric: task.sections['LLM Judge Rubric'] ?? task.sections['Grading Criteria'] ?? '',
      },
      null,
      2,
    ) + '\n',
  );
  return dir;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export const pinchbenchImporter = clawMdImporter(
  PINCHBENCH,
  'PinchBench tasks (grade() unchanged on the transcript and workspace, the rubric through the run judge)',
);
export const qwenclawbenchImporter = clawMdImporter(
  QWENCLAWBENCH,
  "QwenClawBench tasks (grade() unchanged, the rubric through the run's judge, counted only from 0.75 automated)",
);
