import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import { formatIssues } from './zod-errors.js';
import { loadTaskServices, type TaskService } from './task-services.js';

/** The viewport a browser task runs at, in CSS pixels (the screenshot's size). */
const ViewportSchema = z.strictObject({
  width: z.number().int().min(100, 'width must be at least 100 px').max(7680, 'width must be at most 7680 px'),
  height: z.number().int().min(100, 'height must be at least 100 px').max(4320, 'height must be at most 4320 px'),
});

/** `[environment.browser]`: where a browser task's episode starts (docs/browser.md). */
const BrowserSchema = z.strictObject({
  start_url: z
    .string()
    .refine(
      (url) => URL.canParse(url) && /^(https?|file|about|data):/.test(url),
      'start_url must be an absolute http(s), file, about or data URL, e.g. "http://127.0.0.1:8000/"',
    )
    .optional(),
  viewport: ViewportSchema.default({ width: 1280, height: 800 }),
  /**
   * Deadline of /opt/openforge/bin/start-browser-env (display, VNC, task sites, env server), and again of
   * the first reset. Generous: on a loaded 2-core machine a cold Chromium start alone took ~60 s.
   */
  setup_timeout_sec: z.number().positive().default(180),
});
export type BrowserSettings = z.infer<typeof BrowserSchema>;

/** `[environment.desktop]`: the apps a desktop task's episode starts with (docs/desktop.md). */
const DesktopSchema = z.strictObject({
  /** Shell commands the env server starts at reset, in order, e.g. "libreoffice --calc /root/Desktop/sales.xlsx". */
  launch: z.array(z.string().min(1)).default([]),
  /** The episode starts once a window whose title contains this text is shown. */
  wait_for_window: z.string().min(1).optional(),
  /** The X screen (the screenshot's size). */
  screen: ViewportSchema.default({ width: 1280, height: 800 }),
  /** Deadline of /opt/openforge/bin/start-desktop-env, and again of the first reset (apps starting). */
  setup_timeout_sec: z.number().positive().default(180),
});
export type DesktopSettings = z.infer<typeof DesktopSchema>;

const EnvironmentKind = z.enum(['workspace', 'browser', 'desktop'], { error: 'kind must be "workspace" (the default), "browser" or "desktop"' });

/**
 * Harbor's older memory key (`memory = "2G"`, as Terminal-Bench 2 writes it) read as `memory_mb` when that is
 * absent. Its `storage = "10G"` is left unread: a disk limit most engines cannot enforce would refuse the run,
 * where Harbor treats it as a request.
 */
function harborSizes(env: unknown): unknown {
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return env;
  const out: Record<string, unknown> = { ...env };
  const mb = typeof out.memory === 'string' ? megabytes(out.memory) : undefined;
  if (mb !== undefined && out.memory_mb === undefined) out.memory_mb = mb;
  return out;
}

function megabytes(size: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?)?B?\s*$/i.exec(size);
  if (!m) return undefined;
  const unit = (m[2] ?? 'M').toUpperCase()[0]!;
  const factor = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 }[unit]!;
  return Math.max(1, Math.round(Number(m[1]) * factor));
}

/** task.toml in Harbor layout (REFERENCE.md §6). Unknown keys are kept, so Harbor tasks load as they are. */
const TaskTomlSchema = z.looseObject({
  version: z.string().optional(),
  task: z.looseObject({ name: z.string().min(1).optional(), description: z.string().optional() }).optional(),
  metadata: z.looseObject({}).optional(),
  agent: z.looseObject({ timeout_sec: z.number().positive().default(600) }).default({ timeout_sec: 600 }),
  verifier: z
    .looseObject({
      timeout_sec: z.number().positive().default(120),
      env: z.record(z.string(), z.string()).default({}),
      /** The grader fetches over the internet (Terminal-Bench's test.sh installs uv and pytest). */
      allow_internet: z.boolean().default(false),
    })
    .default({ timeout_sec: 120, env: {}, allow_internet: false }),
  environment: z
    .preprocess(
      harborSizes,
      z.looseObject({
        build_timeout_sec: z.number().positive().default(600),
        docker_image: z.string().optional(),
        /** Where the agent starts and the grader runs; the image's WORKDIR when absent. */
        workdir: z
          .string()
          .refine((p) => p.startsWith('/'), 'workdir must be an absolute path inside the container, e.g. "/app"')
          .optional(),
        cpus: z.number().positive().optional(),
        memory_mb: z.number().int().positive().optional(),
        storage_mb: z.number().int().positive().optional(),
        allow_internet: z.boolean().default(false),
        env: z.record(z.string(), z.string()).default({}),
        /** "browser": the image is FROM openforge/browser and the rollout starts its env server first. */
        kind: EnvironmentKind.default('workspace'),
        browser: BrowserSchema.optional(),
        /** With kind "desktop": the image is FROM openforge/desktop and the rollout starts its desktop env server first. */
        desktop: DesktopSchema.optional(),
      }),
    )
    .default({ build_timeout_sec: 600, allow_internet: false, env: {}, kind: 'workspace' })
    .superRefine((env, ctx) => {
      if (env.browser && env.kind !== 'browser') {
        ctx.addIssue({
          code: 'custom',
          path: ['kind'],
          message: '[environment.browser] is set, so kind must be "browser": add kind = "browser" under [environment]',
        });
      }
      if (env.desktop && env.kind !== 'desktop') {
        ctx.addIssue({
          code: 'custom',
          path: ['kind'],
          message: '[environment.desktop] is set, so kind must be "desktop": add kind = "desktop" under [environment]',
        });
      }
    }),
});
export type TaskToml = z.infer<typeof TaskTomlSchema>;

export interface Task {
  /** Unique within a run: `[task] name`, or the folder's name. */
  id: string;
  dir: string;
  instruction: string;
  config: TaskToml;
  /** environment/ folder, when the task has one (its Dockerfile builds the task image). */
  environmentDir?: string;
  testsDir: string;
  solutionDir?: string;
  /** Services run beside each rollout container (environment/docker-compose.yaml); none when absent. */
  services?: TaskService[];
}

/**
 * The folder that holds a task — its suite. Symbolic links in the task's folders may point anywhere inside
 * it (a suite's shared files); image builds and copies into the sandbox follow them and refuse the rest.
 */
export function suiteDirOf(task: Task): string {
  return path.dirname(task.dir);
}

/** A browser task's settings (defaults filled in), or undefined for a workspace task. */
export function browserSettings(task: Task): BrowserSettings | undefined {
  const env = task.config.environment;
  if (env.kind !== 'browser') return undefined;
  return env.browser ?? BrowserSchema.parse({});
}

/** A desktop task's settings (defaults filled in), or undefined for any other task. */
export function desktopSettings(task: Task): DesktopSettings | undefined {
  const env = task.config.environment;
  if (env.kind !== 'desktop') return undefined;
  return env.desktop ?? DesktopSchema.parse({});
}

/** The GUI a task's agent drives (its env server on :7000), or undefined for a workspace task. */
export function guiKind(task: Task): 'browser' | 'desktop' | undefined {
  const kind = task.config.environment.kind;
  return kind === 'browser' || kind === 'desktop' ? kind : undefined;
}

export function isTaskDir(dir: string): boolean {
  return existsSync(path.join(dir, 'task.toml')) && existsSync(path.join(dir, 'instruction.md'));
}

/** What a task's name (its id) may be: it becomes a folder name, an image tag and a key in the store. */
const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function loadTask(dir: string): Task {
  const abs = path.resolve(dir);
  const tomlPath = path.join(abs, 'task.toml');
  if (!existsSync(tomlPath)) {
    throw new UserError(`${abs} is not a task: it has no task.toml`, 'a task folder holds task.toml, instruction.md, tests/test.sh (Harbor layout)');
  }
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(tomlPath, 'utf8'));
  } catch (err) {
    throw new UserError(`${tomlPath}: invalid TOML: ${(err as Error).message}`);
  }
  const parsed = TaskTomlSchema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatIssues(tomlPath, parsed.error));
  const instructionPath = path.join(abs, 'instruction.md');
  if (!existsSync(instructionPath)) throw new UserError(`${abs}: missing instruction.md`, 'write the task prompt the agent receives into instruction.md');
  const testsDir = path.join(abs, 'tests');
  if (!existsSync(path.join(testsDir, 'test.sh'))) {
    throw new UserError(`${abs}: missing tests/test.sh`, 'the grader must write /logs/verifier/reward.txt or reward.json');
  }
  const environmentDir = path.join(abs, 'environment');
  const solutionDir = path.join(abs, 'solution');
  const id = parsed.data.task?.name ?? path.basename(abs);
  if (!TASK_NAME.test(id) || id.length > 128) {
    const from = parsed.data.task?.name !== undefined ? `[task] name in ${tomlPath}` : `the folder name of ${abs}`;
    throw new UserError(
      `task name ${JSON.stringify(id)} (${from}) is not a safe name: it names folders, images and records`,
      'use letters, digits, ".", "_" and "-" (at most 128), starting with a letter or digit',
    );
  }
  return {
    id,
    dir: abs,
    instruction: readFileSync(instructionPath, 'utf8'),
    config: parsed.data,
    environmentDir: existsSync(environmentDir) ? environmentDir : undefined,
    services: loadTaskServices(existsSync(environmentDir) ? environmentDir : undefined),
    testsDir,
    solutionDir: existsSync(path.join(solutionDir, 'solve.sh')) ? solutionDir : undefined,
  };
}

/** A task folder, or a suite folder whose sub-folders are tasks. Sorted by id; ids must be unique. */
/** The reference solution's final answer, beside solution/solve.sh: what the oracle says when it is done. */
export const REFERENCE_ANSWER = 'answer.md';

export function loadTasks(target: string): Task[] {
  const abs = path.resolve(target);
  if (!existsSync(abs)) throw new UserError(`task path ${abs} does not exist`);
  if (isTaskDir(abs)) return [loadTask(abs)];
  const tasks = readdirSync(abs)
    .map((name) => path.join(abs, name))
    .filter((p) => statSync(p).isDirectory() && isTaskDir(p))
    .map(loadTask)
    .sort((a, b) => a.id.localeCompare(b.id));
  if (tasks.length === 0) throw new UserError(`${abs} holds no task (no sub-folder with task.toml and instruction.md)`);
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.id)) throw new UserError(`two tasks in ${abs} share the id "${t.id}"`, 'give each a unique [task] name');
    seen.add(t.id);
  }
  return tasks;
}

/**
 * The benchmark a task comes from: its task.toml `[metadata] benchmark` (the Claw importers write it), else
 * the dataset of the harbor-dataset.json beside it (`openforge tasks import --from harbor`), e.g. terminal-bench.
 */
export function benchmarkOf(task: Task): string | undefined {
  const declared = (task.config.metadata as Record<string, unknown> | undefined)?.benchmark;
  if (typeof declared === 'string' && declared) return declared;
  const manifest = path.join(suiteDirOf(task), 'harbor-dataset.json');
  if (!existsSync(manifest)) return undefined;
  try {
    const dataset = (JSON.parse(readFileSync(manifest, 'utf8')) as { dataset?: unknown }).dataset;
    return typeof dataset === 'string' ? dataset : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What of the internet a task asks for that a run on `network` does not give it, as a line for the run's
 * output. A backend that `grants` it gives each such rollout its own egress on a proxy-only network.
 */
export function internetNotGiven(task: Task, network: string, grants = false): string | undefined {
  if (network === 'public' || (network === 'proxy-only' && grants)) return undefined;
  const wants = [
    task.config.environment.allow_internet && '[environment] allow_internet',
    task.config.verifier.allow_internet && '[verifier] allow_internet',
  ].filter(Boolean);
  if (!wants.length) return undefined;
  const fix = network === 'none' ? 'network: proxy-only gives it to such rollouts alone' : 'network: public gives every rollout the internet';
  return `task ${task.id} asks for the internet (${wants.join(', ')} = true), but this run's network is ${network}: it runs without (${fix})`;
}
