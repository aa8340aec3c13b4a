import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  APP_COMMANDS,
  APP_WINDOWS,
  NOT_NEEDED_LAUNCHES,
  REFERENCE_STATES,
  SUPPORTED_GETTERS,
  SUPPORTED_METRICS,
  LENIENT_METRICS,
  SUPPORTED_POSTCONFIG,
  SUPPORTED_SETUP,
} from './supported.js';

/** An OSWorld task JSON (the fields the importer reads; the rest is carried unchanged in tests/task.json). */
export interface OsworldTask {
  id: string;
  instruction: string;
  snapshot?: string;
  related_apps?: string[];
  config?: { type: string; parameters?: Record<string, unknown> }[];
  evaluator: {
    func: string | string[];
    conj?: string;
    result?: Getter | Getter[];
    expected?: Getter | Getter[];
    options?: unknown;
    postconfig?: { type: string; parameters?: Record<string, unknown> }[];
  };
}

interface Getter {
  type: string;
  path?: unknown;
  dest?: unknown;
  multi?: boolean;
  [key: string]: unknown;
}

/** Why a task cannot be imported, by kind: the CLI counts them apart. */
export type SkipCategory = 'needs network' | 'unsupported getter' | 'unsupported metric' | 'unsupported setup' | 'unsupported app';

export class Skip extends Error {
  constructor(
    readonly category: SkipCategory,
    message: string,
  ) {
    super(message);
  }
}

/** A file the task carries: from the cache folder into the image (setup) or into tests/cache (expected). */
export interface CarriedFile {
  cachePath: string;
  /** Inside the container, for setup downloads; the name under tests/cache for expected files. */
  target: string;
}

export interface ConvertedTask {
  id: string;
  domain: string;
  instruction: string;
  /** Dockerfile lines after `FROM openforge/desktop`. */
  dockerLines: string[];
  /** Files copied into environment/files/ and placed by dockerLines. */
  setupFiles: CarriedFile[];
  /** Files for the evaluator's cloud_file / cache_file getters (tests/cache/<dest>). */
  expectedFiles: CarriedFile[];
  launch: string[];
  waitForWindow?: string;
  /** The reference solution when one follows from the evaluator: a shell script, or FAIL for infeasible tasks. */
  solution?: { kind: 'fail' } | { kind: 'script'; script: string; files: CarriedFile[] } | { kind: 'reference-state'; script: string };
}

/** OSWorld's user home → the desktop image's. */
export function localPath(p: string): string {
  if (p.startsWith('/home/user/')) return `/root/${p.slice('/home/user/'.length)}`;
  if (p.startsWith('~/')) return `/root/${p.slice(2)}`;
  return path.isAbsolute(p) ? p : `/root/${p}`;
}

function localCommand(command: string): string {
  return command.replaceAll('/home/user/', '/root/').replaceAll('~/', '/root/');
}

/** Where a postconfig download is carried in tests/cache: the evaluator module copies it into place before the step after it runs. */
export function postconfigCacheName(url: string): string {
  return `postconfig-${decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '')}`;
}

/** Finds a download in the cache folder: <cache>/<domain>/<id>/<file> (the Hugging Face mirror's layout), or <cache>/<file>. */
function cached(cache: string | undefined, url: string): string | undefined {
  if (!cache) return undefined;
  const parts = new URL(url).pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const file = parts.at(-1) ?? '';
  const candidates = [path.join(cache, ...parts.slice(-3)), path.join(cache, file)];
  return candidates.find((c) => existsSync(c));
}

function getters(g: Getter | Getter[] | undefined): Getter[] {
  return g === undefined ? [] : Array.isArray(g) ? g : [g];
}

function appCommand(argv: string[]): string | undefined {
  const bin = path.basename(argv[0] ?? '');
  if (NOT_NEEDED_LAUNCHES.has(bin)) return undefined;
  const mapped = APP_COMMANDS[bin];
  if (mapped === null) throw new Skip('unsupported app', `launches ${bin}, which the desktop image does not have`);
  if (mapped === undefined) throw new Skip('unsupported app', `launches ${bin}, unknown to the importer`);
  return [mapped, ...argv.slice(1).map((a) => (a.startsWith('--') ? a : localPath(a)))].join(' ');
}

function openCommand(file: string): string {
  const ext = path.extname(file).toLowerCase();
  if (['.xlsx', '.xls', '.ods', '.csv', '.docx', '.doc', '.odt', '.pptx', '.ppt', '.odp'].includes(ext)) return `libreoffice --norestore ${file}`;
  if (['.txt', '.md', '.log', '.py', '.json', '.sh'].includes(ext)) return `mousepad ${file}`;
  if (!ext) return `pcmanfm ${file}`;
  throw new Skip('unsupported app', `opens ${path.basename(file)}, whose type no app of the desktop image opens`);
}

/** A setup step's command as one line (OSWorld gives a string or an argv list). */
function commandText(command: unknown): string {
  return Array.isArray(command) ? (command as string[]).join(' ') : String(command ?? '');
}

/** A launch step's command as argv. */
function commandArgv(command: unknown): string[] {
  return Array.isArray(command) ? (command as string[]) : String(command ?? '').split(/\s+/);
}

/** Why the task needs the live network whatever the cache holds (websites, package installs, accounts); undefined when it does not. */
function liveNetwork(task: OsworldTask): string | undefined {
  for (const step of task.config ?? []) {
    const p = step.parameters ?? {};
    if (step.type === 'chrome_open_tabs' && ((p.urls_to_open as string[]) ?? []).some((u) => /^https?:/.test(u))) return 'opens websites in Chrome';
    if (step.type === 'login' || step.type === 'googledrive') return `setup step ${step.type} signs in to an online account`;
    if (step.type === 'execute' || step.type === 'command') {
      const command = commandText(p.command);
      if (/sudo|apt-get|pip install|https?:\/\//.test(command)) return `setup command installs or fetches: ${command.slice(0, 80)}`;
    }
  }
  return undefined;
}

/** One OSWorld task → what the Harbor task needs, or a Skip naming why it cannot run offline here. */
export function convertTask(task: OsworldTask, domain: string, cache: string | undefined): ConvertedTask {
  const ev = task.evaluator;
  const network = liveNetwork(task);
  if (network) throw new Skip('needs network', network);
  const funcs = Array.isArray(ev.func) ? ev.func : [ev.func];
  for (const f of funcs) {
    if (LENIENT_METRICS[f]) throw new Skip('unsupported metric', `metric ${f}: ${LENIENT_METRICS[f]}`);
    if (!SUPPORTED_METRICS.has(f)) throw new Skip('unsupported metric', `metric ${f}`);
  }
  for (const g of [...getters(ev.result), ...getters(ev.expected)]) {
    if (!SUPPORTED_GETTERS.has(g.type)) throw new Skip('unsupported getter', `getter ${g.type}`);
  }
  for (const step of ev.postconfig ?? []) {
    if (!SUPPORTED_POSTCONFIG.has(step.type)) throw new Skip('unsupported setup', `postconfig step ${step.type}`);
    if (step.parameters?.stdout) throw new Skip('unsupported setup', "postconfig keeps a command's output for a cache_file getter (stdout)");
    if (step.type === 'launch') {
      const argv = commandArgv(step.parameters?.command);
      if (argv[0] !== 'pkill') appCommand(argv);
    }
  }
  const out: ConvertedTask = { id: task.id, domain, instruction: task.instruction, dockerLines: [], setupFiles: [], expectedFiles: [], launch: [] };
  for (const step of task.config ?? []) {
    const p = step.parameters ?? {};
    if (!SUPPORTED_SETUP.has(step.type)) throw new Skip('unsupported setup', `setup step ${step.type}`);
    if (step.type === 'download') {
      for (const f of (p.files as { url: string; path: string }[]) ?? []) {
        const hit = cached(cache, f.url);
        if (!hit) throw new Skip('needs network', `download ${f.url}`);
        const target = localPath(f.path);
        out.setupFiles.push({ cachePath: hit, target });
      }
    } else if (step.type === 'execute' || step.type === 'command') {
      const command = commandText(p.command);
      if (/pyautogui/.test(command)) throw new Skip('unsupported setup', 'setup acts on the screen (pyautogui) before the agent starts');
      if (/xdg-open|DBUS_SESSION/.test(command)) throw new Skip('unsupported setup', 'setup opens apps through the user session (xdg-open)');
      out.dockerLines.push(`RUN cd /root && ${localCommand(Array.isArray(p.command) ? (p.command as string[]).map(shellQuote).join(' ') : String(p.command))}`);
    } else if (step.type === 'launch') {
      const argv = commandArgv(p.command);
      const command = appCommand(argv);
      if (command) out.launch.push(command);
      out.waitForWindow ??= APP_WINDOWS[path.basename(argv[0] ?? '')];
    } else if (step.type === 'open') {
      const file = localPath(String(p.path));
      out.launch.push(openCommand(file));
      out.waitForWindow ??= path.basename(file);
    }
    // sleep and activate_window: the env server waits for the first window and settles instead
  }
  for (const step of ev.postconfig ?? []) {
    if (step.type !== 'download') continue;
    for (const f of (step.parameters?.files as { url: string; path: string }[]) ?? []) {
      const hit = cached(cache, f.url);
      if (!hit) throw new Skip('needs network', `postconfig download ${f.url}`);
      out.expectedFiles.push({ cachePath: hit, target: postconfigCacheName(f.url) });
    }
  }
  for (const g of getters(ev.expected)) {
    if (g.type !== 'cloud_file' && g.type !== 'cache_file') continue;
    const urls = (g.multi ? g.path : [g.path]) as string[];
    const dests = (g.multi ? g.dest : [g.dest]) as string[];
    urls.forEach((url, i) => {
      const hit = cached(cache, url);
      if (!hit) throw new Skip('needs network', `expected file ${url}`);
      out.expectedFiles.push({ cachePath: hit, target: dests[i]! });
    });
  }
  out.solution = referenceSolution(task, out);
  return out;
}

/**
 * The reference solution when the evaluator says what the end state is: FAIL for infeasible tasks; for file
 * comparisons against a carried expected file, the app is closed and the expected file put in place.
 */
function referenceSolution(task: OsworldTask, t: ConvertedTask): ConvertedTask['solution'] {
  const ev = task.evaluator;
  if (ev.func === 'infeasible') return { kind: 'fail' };
  const results = getters(ev.result);
  const expected = getters(ev.expected);
  const state = referenceState(task);
  if (state) return state;
  const pairs = results.map((r, i) => [r, expected[i] ?? expected[0]] as const);
  const copies: CarriedFile[] = [];
  for (const [r, e] of pairs) {
    if (r.type !== 'vm_file' || !e || e.type !== 'cloud_file' || r.multi || e.multi) return undefined;
    const file = t.expectedFiles.find((f) => f.target === e.dest);
    if (!file) return undefined;
    if (!copies.some((c) => c.target === localPath(String(r.path)))) copies.push({ cachePath: file.cachePath, target: localPath(String(r.path)) });
  }
  if (copies.length === 0) return undefined;
  const lines = [
    '#!/usr/bin/env bash',
    '# Reference end state, from the evaluator: the app is closed so it cannot save over it, and the expected file is put where the task saves.',
    'set -euo pipefail',
    'pkill -f soffice.bin || true',
    'sleep 1',
    ...copies.map(
      (c, i) => `mkdir -p ${shellQuote(path.posix.dirname(c.target))} && cp /solution/expected/${i}${path.extname(c.target)} ${shellQuote(c.target)}`,
    ),
    '',
  ];
  return { kind: 'script', script: lines.join('\n'), files: copies.map((c, i) => ({ cachePath: c.cachePath, target: `${i}${path.extname(c.target)}` })) };
}

/** The evaluator's own end state (REFERENCE_STATES), when every metric of the task has one and expects a literal rule. */
function referenceState(task: OsworldTask): ConvertedTask['solution'] {
  const ev = task.evaluator;
  const funcs = Array.isArray(ev.func) ? ev.func : [ev.func];
  const results = getters(ev.result);
  const expected = getters(ev.expected);
  const stops = new Set<string>();
  for (const [i, f] of funcs.entries()) {
    const r = results[i] ?? results[0];
    const e = expected[i] ?? expected[0];
    const state = r && REFERENCE_STATES[`${f}/${r.type}`];
    if (!state || e?.type !== 'rule') return undefined;
    stops.add(state.stops);
  }
  const lines = [
    '#!/usr/bin/env bash',
    '# Reference end state, from the evaluator: the app that owns the settings file is stopped so it cannot write over it, and',
    "# osworld_eval.reference writes what the task's rule expects into the file its getter reads.",
    'set -euo pipefail',
    ...[...stops].map((p) => `pkill -9 ${p} || true\nwhile pgrep ${p} >/dev/null; do sleep 0.2; done`),
    'python3 -m osworld_eval.reference /solution/task.json',
    '',
  ];
  return { kind: 'reference-state', script: lines.join('\n') };
}

export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}
