import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as toToml } from 'smol-toml';
import { stringify as toYaml } from 'yaml';
import { UserError, errorMessage } from '../../util/errors.js';
import { packageRoot } from '../../util/paths.js';
import type { ImportReport, TaskImporter } from '../types.js';
import { instructionOf } from './instruction.js';
import { parseClawEvalTask, type ClawEvalService, type ClawEvalTask } from './task-yaml.js';

/** The framework packages their graders import (claw_eval.models, claw_eval.graders), copied into each task's tests/. */
const FRAMEWORK_PACKAGES = ['models', 'graders'];
/** Where the checkout's files go in a task's tests/ (base.py finds peer graders at <root>/tasks by its own path). */
const TESTS_ROOT = 'claw-eval';
/** The build folder of the task's mock services (one image, one compose service per `services[]` entry). */
const MOCK_CONTEXT = 'mock-services';
const PEER = /load_peer_grader\(\s*["']([^"']+)["']/g;

const TEST_SH = `#!/bin/bash
# Claw-Eval's own grader.py (tests/claw-eval/tasks/<id>/), unchanged, through OpenForge's adapter (grade.py)
exec python3 /tests/grade.py
`;

/** What a task needs that no importer can provide here, by cause; undefined when it imports. */
function notImportable(root: string, dir: string, task: ClawEvalTask): string | undefined {
  if (task.user_agent.enabled)
    return 'needs a simulated user (user_agent.enabled: a second LLM answers the agent over several rounds), which a task with one instruction cannot carry';
  const web = (task.services ?? []).find((s) => /mock_services\/web_real/.test(s.command));
  if (web) return `needs live web search (service ${web.name} runs ${web.command}, which queries a search API with the SERP_DEV_KEY key)`;
  for (const f of [...task.prompt.attachments, ...(task.sandbox_files ?? []), ...(task.sandbox_grader_files ?? [])]) {
    if (!existsSync(path.join(dir, f)))
      return `its file ${f} is not in the checkout (media kept on Hugging Face, claw-eval/Claw-Eval, not in the git repository)`;
  }
  for (const s of task.services ?? []) {
    const server = serverDir(s);
    if (!server) return `service ${s.name}: its command "${s.command}" runs no mock_services/<name>/server.py`;
    if (!existsSync(path.join(root, server))) return `service ${s.name}: ${server} is not in the checkout`;
    for (const [key, value] of Object.entries(s.env)) {
      if (/_FIXTURES$/.test(key) && !existsSync(path.join(root, String(value)))) return `service ${s.name}: its fixtures ${value} are not in the checkout`;
    }
  }
  return undefined;
}

/** `python mock_services/gmail/server.py` → `mock_services/gmail`. */
function serverDir(s: ClawEvalService): string | undefined {
  return /(mock_services\/[\w-]+)\/[\w-]+\.py/.exec(s.command)?.[1];
}

/** The task's grader and every peer it loads (English tasks inherit their Chinese peer's), transitively. */
function graderTasks(tasksDir: string, id: string): string[] {
  const seen: string[] = [];
  const visit = (t: string) => {
    if (seen.includes(t)) return;
    const grader = path.join(tasksDir, t, 'grader.py');
    if (!existsSync(grader)) throw new Error(`its grader loads the grader of ${t}, which is not in the checkout (${grader})`);
    seen.push(t);
    for (const m of readFileSync(grader, 'utf8').matchAll(PEER)) visit(m[1]!);
  };
  visit(id);
  return seen;
}

function copy(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

function writeTask(root: string, taskDir: string, task: ClawEvalTask, graders: string[], outDir: string): string {
  const dir = path.join(outDir, task.task_id);
  rmSync(dir, { recursive: true, force: true });
  const env = path.join(dir, 'environment');
  const tests = path.join(dir, 'tests');
  mkdirSync(env, { recursive: true });
  mkdirSync(tests, { recursive: true });
  const services = task.services ?? [];

  // the agent's files: sandbox_files land at /workspace/<path>, as their sandbox runner puts them
  for (const f of task.sandbox_files ?? []) copy(path.join(taskDir, f), path.join(env, 'workspace', f));
  writeFileSync(path.join(env, 'Dockerfile'), `FROM openforge/claw-eval\n${task.sandbox_files?.length ? 'COPY workspace/ /workspace/\n' : ''}`);

  if (services.length) {
    const mock = path.join(env, MOCK_CONTEXT);
    copy(path.join(root, 'mock_services', '_base.py'), path.join(mock, 'mock_services', '_base.py'));
    for (const s of services) copy(path.join(root, serverDir(s)!), path.join(mock, serverDir(s)!));
    // fixtures: the task's own, and its peers' (a service without *_FIXTURES reads its default task's)
    for (const t of graders) {
      const fixtures = path.join(root, 'tasks', t, 'fixtures');
      if (existsSync(fixtures)) copy(fixtures, path.join(mock, 'tasks', t, 'fixtures'));
    }
    writeFileSync(path.join(mock, 'Dockerfile'), 'FROM openforge/claw-eval\nWORKDIR /opt/claw-eval\nCOPY mock_services/ mock_services/\nCOPY tasks/ tasks/\n');
    const compose = Object.fromEntries(
      services.map((s) => {
        const audit = auditUrl(s);
        return [
          s.name,
          {
            build: MOCK_CONTEXT,
            command: s.command,
            environment: { ...Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, String(v)])), PORT: String(s.port), ERROR_RATE: '0' },
            healthcheck: {
              test: ['CMD', 'python3', '-c', `import urllib.request; urllib.request.urlopen('${audit}')`],
              interval: '0.5s',
              retries: 60,
            },
            'x-openforge-audit': audit,
          },
        ];
      }),
    );
    writeFileSync(path.join(env, 'docker-compose.yaml'), toYaml({ services: compose }));
  }

  // the grader: their framework, the task's grader.py and its peers', unchanged, and OpenForge's adapter
  const fw = path.join(tests, TESTS_ROOT);
  for (const pkg of FRAMEWORK_PACKAGES) {
    const from = path.join(root, 'src', 'claw_eval', pkg);
    for (const f of readdirSync(from).filter((n) => n.endsWith('.py'))) copy(path.join(from, f), path.join(fw, 'src', 'claw_eval', pkg, f));
  }
  if (existsSync(path.join(root, 'src', 'claw_eval', '__init__.py')))
    copy(path.join(root, 'src', 'claw_eval', '__init__.py'), path.join(fw, 'src', 'claw_eval', '__init__.py'));
  for (const t of graders) {
    copy(path.join(root, 'tasks', t, 'grader.py'), path.join(fw, 'tasks', t, 'grader.py'));
    copy(path.join(root, 'tasks', t, 'task.yaml'), path.join(fw, 'tasks', t, 'task.yaml'));
  }
  for (const f of task.sandbox_grader_files ?? []) copy(path.join(taskDir, f), path.join(fw, 'tasks', task.task_id, f));
  copy(path.join(packageRoot(), 'src/importers/claw-eval/grade.py'), path.join(tests, 'grade.py'));
  writeFileSync(path.join(tests, 'test.sh'), TEST_SH, { mode: 0o755 });
  writeFileSync(
    path.join(tests, 'claw-eval.json'),
    JSON.stringify({ task_id: task.task_id, task_dir: graders[0], services: services.map((s) => ({ name: s.name, port: s.port })) }, null, 2) + '\n',
  );

  writeFileSync(path.join(dir, 'instruction.md'), instructionOf(task));
  writeFileSync(
    path.join(dir, 'task.toml'),
    toToml({
      version: '1.0',
      task: { name: task.task_id, description: task.task_name },
      metadata: { benchmark: 'claw-eval', source: path.relative(root, path.join(taskDir, 'task.yaml')), category: task.category },
      agent: { timeout_sec: task.environment.timeout_seconds },
      // their LLMJudge retries a failing judge call for minutes; the grader's own checks take seconds
      verifier: { timeout_sec: 600 },
    }),
  );
  return dir;
}

/** Their services answer their audit log at `GET <reset_endpoint minus /reset>/audit` (runner/loop.py). */
function auditUrl(s: ClawEvalService): string {
  const base = s.reset_endpoint ? s.reset_endpoint.replace(/\/reset$/, '') : `http://localhost:${s.port}/${s.name}`;
  const url = new URL(`${base}/audit`);
  url.hostname = '127.0.0.1';
  return url.toString();
}

export const clawEvalImporter: TaskImporter = {
  name: 'claw-eval',
  description: "Claw-Eval tasks (their mock services beside the agent, their grader.py unchanged on the trajectory and audit logs, the run's judge)",
  source: 'a claw-eval repository checkout (tasks/, mock_services/, src/claw_eval/)',
  async import(source: string, outDir: string): Promise<ImportReport> {
    const root = path.resolve(source);
    const tasksDir = path.join(root, 'tasks');
    const missing = ['tasks', 'mock_services/_base.py', ...FRAMEWORK_PACKAGES.map((p) => `src/claw_eval/${p}`)].filter((p) => !existsSync(path.join(root, p)));
    if (missing.length)
      throw new UserError(`${root} is not a claw-eval checkout: ${missing.join(', ')} missing`, 'pass a checkout of github.com/claw-eval/claw-eval');
    const report: ImportReport = { written: [], skipped: [] };
    for (const name of readdirSync(tasksDir).sort()) {
      const taskDir = path.join(tasksDir, name);
      const file = path.join(taskDir, 'task.yaml');
      if (!statSync(taskDir).isDirectory() || !existsSync(file)) continue;
      let task: ClawEvalTask;
      let graders: string[];
      try {
        task = parseClawEvalTask(readFileSync(file, 'utf8'), file);
        graders = graderTasks(tasksDir, name);
      } catch (err) {
        report.skipped.push({ id: name, cause: errorMessage(err) });
        continue;
      }
      const cause = notImportable(root, taskDir, task);
      if (cause) {
        report.skipped.push({ id: task.task_id, cause });
        continue;
      }
      report.written.push(writeTask(root, taskDir, task, graders, path.resolve(outDir)));
    }
    return report;
  },
};
