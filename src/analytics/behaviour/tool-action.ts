import { isRecord } from '../../util/is-record.js';
import { scriptCore, simpleCommands, type SimpleCommand } from './shell-script.js';

/** What a tool call does to the task's files: changes them, or looks at them (a test, a read-back, a diff, a listing). */
export type Effect = 'write' | 'check';

/** One tool call as the behaviour metrics read it. */
export interface ToolAction {
  /** Its writes and checks in the order it does them (one shell command may do several). */
  effects: Effect[];
  /** Equal for the same call: the tool's name and arguments, a shell script by what it runs (comments, blank lines and spacing aside). */
  signature: string;
  /** Equal for calls after the same thing: a shell script's programs with their first operand, or the file a file tool works on. */
  intent: string;
}

/** Arguments a shell tool takes its script in (bash, exec_command, run_shell_command, exec, …). */
const COMMAND_KEYS = ['command', 'cmd', 'script'];
/** Arguments a file tool names its file in. */
const PATH_KEYS = ['file_path', 'filePath', 'path', 'absolute_path', 'file', 'filename', 'notebook_path', 'pattern'];

/** File tools by name, lower-cased without `_` and `-`: those that change files, and those that read or list them. */
const WRITE_TOOLS = new Set([
  'write',
  'writefile',
  'edit',
  'editfile',
  'multiedit',
  'strreplace',
  'applypatch',
  'patch',
  'replace',
  'createfile',
  'insert',
  'notebookedit',
  'deletefile',
  'movefile',
  'renamefile',
  'createdirectory',
  'mkdir',
]);
const CHECK_TOOLS = new Set([
  'read',
  'readfile',
  'readmanyfiles',
  'view',
  'viewfile',
  'viewimage',
  'cat',
  'ls',
  'listdirectory',
  'listdir',
  'listfiles',
  'glob',
  'grep',
  'grepsearch',
  'searchfiles',
  'findfiles',
  'diff',
  'stat',
]);
/** Anthropic's text editor tool names its operation in `command`: these look, the others change the file. */
const EDITOR_LOOKS = new Set(['view']);
const EDITOR_CHANGES = new Set(['create', 'str_replace', 'insert', 'undo_edit']);

/** Programs that change files whatever their arguments, and those that only read, list or compare. */
const WRITE_PROGRAMS = new Set([
  'cp',
  'mv',
  'rm',
  'rmdir',
  'mkdir',
  'touch',
  'chmod',
  'chown',
  'chgrp',
  'ln',
  'tee',
  'install',
  'truncate',
  'patch',
  'dd',
  'rsync',
  'unzip',
  'gunzip',
  'gzip',
  'bzip2',
  'xz',
  'zip',
  'shred',
  'mkfifo',
]);
const CHECK_PROGRAMS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'ls',
  'stat',
  'file',
  'wc',
  'diff',
  'cmp',
  'comm',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'jq',
  'od',
  'xxd',
  'hexdump',
  'find',
  'tree',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'cksum',
  'test',
  '[',
  '[[',
  'pytest',
  'tox',
  'readlink',
  'realpath',
  'du',
  'column',
  'nl',
  'sed',
  'awk',
  'shellcheck',
  'bats',
]);
/** git subcommands that change the repository or the work tree, and those that look at them. */
const GIT_WRITES = new Set([
  'add',
  'commit',
  'tag',
  'checkout',
  'switch',
  'branch',
  'merge',
  'rebase',
  'reset',
  'restore',
  'rm',
  'mv',
  'init',
  'apply',
  'stash',
  'cherry-pick',
  'revert',
  'config',
  'clone',
  'pull',
  'am',
]);
const GIT_CHECKS = new Set(['diff', 'status', 'log', 'show', 'ls-files', 'rev-parse', 'cat-file', 'describe', 'blame']);
/** Interpreters whose inline code (a heredoc, `-c '…'`, `-e '…'`) is read for writes. */
const INTERPRETERS = /^(python[0-9.]*|node|perl|ruby|php)$/;
/** Inline code that writes files. */
const CODE_WRITES =
  /open\([^)]*['"][wax]b?\+?['"]|\.write(_text|_bytes)?\(|json\.dump\(|\.to_(csv|json|parquet)\(|shutil\.|os\.(rename|replace|remove|unlink|mkdir|makedirs)\(|\.mkdir\(|\.unlink\(|writeFileSync|appendFileSync|mkdirSync/;
/** Prefixes that run the command after them: `sudo rm …` is an `rm`. */
const WRAPPERS = new Set(['sudo', 'env', 'time', 'nice', 'nohup', 'command', 'exec', 'xargs', 'timeout', 'stdbuf']);
/** Commands that only set up the shell: no part of a call's intent. */
const SETUP_PROGRAMS = new Set(['cd', 'pushd', 'popd', 'set', 'export', 'source', '.', 'true', 'shopt', 'umask']);

/** Reads one tool call: what it does to files, its signature, and its intent. */
export function toolAction(call: { name: string; arguments: string }): ToolAction {
  const args = parseArguments(call.arguments);
  const editorCommand = typeof args?.command === 'string' && typeof args.path === 'string' ? args.command : undefined;
  if (editorCommand && (EDITOR_LOOKS.has(editorCommand) || EDITOR_CHANGES.has(editorCommand))) {
    return {
      effects: [EDITOR_LOOKS.has(editorCommand) ? 'check' : 'write'],
      signature: `${call.name}\n${canonicalJson(args)}`,
      intent: `${call.name}:${String(args!.path)}`,
    };
  }
  const script = shellScript(args);
  if (script !== undefined) {
    const commands = simpleCommands(script);
    return {
      effects: commands.flatMap((c) => effectOf(c) ?? []),
      signature: `${call.name}\n${scriptCore(script)}`,
      intent: `${call.name}:${commands
        .map(withoutWrappers)
        .filter((words) => words.length > 0 && !SETUP_PROGRAMS.has(words[0]!))
        .map((words) => [words[0], words.slice(1).find((w) => !w.startsWith('-'))].filter(Boolean).join(' '))
        .join(' ; ')}`,
    };
  }
  const name = call.name.replace(/^.*__/, '').toLowerCase().replace(/[_-]/g, '');
  const file = args && PATH_KEYS.map((key) => args[key]).find((v) => typeof v === 'string');
  const signature = `${call.name}\n${args ? canonicalJson(args) : call.arguments.trim()}`;
  return {
    effects: WRITE_TOOLS.has(name) ? ['write'] : CHECK_TOOLS.has(name) ? ['check'] : [],
    signature,
    intent: typeof file === 'string' ? `${call.name}:${file}` : signature,
  };
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined; // a freeform tool's raw input (Codex's apply_patch)
  }
}

/** The script a shell tool call runs: a command string, or the script of an argv such as ["bash", "-lc", "…"]. */
function shellScript(args: Record<string, unknown> | undefined): string | undefined {
  for (const key of COMMAND_KEYS) {
    const value = args?.[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((w) => typeof w === 'string')) {
      const argv = value as string[];
      const viaShell = argv.length >= 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && /^-[a-z]*c$/.test(argv[1]!);
      return viaShell ? argv[argv.length - 1] : argv.join(' ');
    }
  }
  return undefined;
}

/** A command's words from the program it runs: variable assignments and wrappers (`sudo`, `env`, `timeout 10`, `xargs -0`) left out. */
function withoutWrappers(command: SimpleCommand): string[] {
  const words = [...command.words];
  while (words.length > 0) {
    const first = words[0]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) words.shift();
    else if (WRAPPERS.has(basename(first))) {
      words.shift();
      while (words.length > 0 && (words[0]!.startsWith('-') || /^\d+[smhd]?$/.test(words[0]!))) words.shift();
    } else break;
  }
  if (words.length > 0) words[0] = basename(words[0]!);
  return words;
}

function effectOf(command: SimpleCommand): Effect | undefined {
  if (command.writesFile) return 'write';
  const words = withoutWrappers(command);
  const [program, ...rest] = words;
  if (program === undefined) return undefined;
  const flags = rest.filter((w) => w.startsWith('-'));
  if ((program === 'sed' || program === 'perl') && flags.some((f) => /^-[a-zA-Z]*i/.test(f) || f.startsWith('--in-place'))) return 'write';
  if (program === 'sort' && flags.some((f) => f === '-o' || f.startsWith('--output'))) return 'write';
  if (program === 'tar') return /^-?[a-zA-Z]*t/.test(rest[0] ?? '') ? 'check' : 'write';
  if (program === 'git') {
    const sub = rest.find((w) => !w.startsWith('-'));
    return sub && GIT_WRITES.has(sub) ? 'write' : sub && GIT_CHECKS.has(sub) ? 'check' : undefined;
  }
  if (/^(npm|pnpm|yarn|pip[0-9.]*|apt(-get)?|cargo|go)$/.test(program)) {
    if (rest.some((w) => w === 'install' || w === 'add' || w === 'ci')) return 'write';
    if (rest.some((w) => w === 'test')) return 'check';
    return undefined;
  }
  if (program === 'make') return rest.some((w) => /^(test|check)$/.test(w)) ? 'check' : 'write';
  if (/^(md5|sha\d*)sum$/.test(program) && flags.includes('-c')) return 'check';
  if (INTERPRETERS.test(program)) {
    const inline = [...command.heredocs, ...rest.filter((_, i) => /^-[ce]$/.test(rest[i - 1] ?? ''))].join('\n');
    if (CODE_WRITES.test(inline)) return 'write';
    if (rest.some((w, i) => rest[i - 1] === '-m' && /^(pytest|unittest|json\.tool|py_compile|doctest)$/.test(w))) return 'check';
    if (rest.some((w) => w === '--test' || /(^|\/)test[^/]*$|_test\.|\.test\./.test(w))) return 'check';
    return undefined;
  }
  if (WRITE_PROGRAMS.has(program)) return 'write';
  if (CHECK_PROGRAMS.has(program)) return 'check';
  // a test script by its name: ./run_tests.sh, bash tests/test.sh
  if (/(^|\/)(run_?)?tests?([_.-][^/]*)?$/.test(program) || ((program === 'bash' || program === 'sh') && /(^|\/)(run_?)?tests?/.test(rest[0] ?? '')))
    return 'check';
  return undefined;
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** JSON with object keys sorted, so equal arguments compare equal whatever order the model wrote them in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
