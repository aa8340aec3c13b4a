import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AgentResult, AgentRunOptions } from './agent-run.js';
import type { ChatClientOptions } from './chat-client.js';

export const MODEL_ENV_USAGE = 'env: OPENAI_BASE_URL (required), OPENAI_API_KEY, OPENAI_MODEL (default "policy"), FORGE_TEMPERATURE';

/** OPENAI_BASE_URL (required), OPENAI_API_KEY, OPENAI_MODEL and FORGE_TEMPERATURE; throws naming what is wrong. */
function readModelEnv(env: NodeJS.ProcessEnv): Pick<ChatClientOptions, 'baseUrl' | 'apiKey' | 'model' | 'temperature'> {
  if (!env.OPENAI_BASE_URL) throw new Error('OPENAI_BASE_URL is not set');
  const temperature = env.FORGE_TEMPERATURE ? Number(env.FORGE_TEMPERATURE) : undefined;
  if (temperature !== undefined && !Number.isFinite(temperature)) throw new Error('FORGE_TEMPERATURE must be a number');
  return { baseUrl: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY, model: env.OPENAI_MODEL || 'policy', temperature };
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every agent takes. */
const COMMON_OPTIONS = {
  'instruction-file': { type: 'string' },
  'max-turns': { type: 'string' },
  transcript: { type: 'string' },
  help: { type: 'boolean' },
} as const;

type Flags<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & T; strict: true; allowPositionals: false }>
>['values'];

/**
 * An agent's options from its command line and environment: those every agent takes
 * (--instruction-file, --max-turns 30, --transcript, the model's environment) and its `own`, which
 * `settings` reads from the parsed flags. `--name value` and `--name=value` both work; an unknown
 * option or a stray argument throws (node:util's parser, strict). `undefined` for --help. Every
 * argument is checked before the instruction file is read.
 */
export function readAgentOptions<T extends Options, S>(
  argv: string[],
  env: NodeJS.ProcessEnv,
  own: T,
  settings: (flags: Flags<T>) => S,
): (AgentRunOptions & S) | undefined {
  const values = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...own }, strict: true, allowPositionals: false }).values;
  const flags = values as Flags<Record<never, never>>;
  if (flags.help) return undefined;
  const instructionFile = flags['instruction-file'];
  if (instructionFile === undefined) throw new Error('--instruction-file is required');
  const common = {
    ...readModelEnv(env),
    maxTurns: positiveNumber(flags['max-turns'], 'max-turns', 30, true),
    transcriptPath: flags.transcript ?? '/logs/agent/transcript.jsonl',
  };
  const mine = settings(values as Flags<T>);
  return { ...common, ...mine, instruction: readInstruction(instructionFile) };
}

function readInstruction(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const problem = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (err as Error).message;
    throw new Error(`--instruction-file ${file}: ${problem}`, { cause: err });
  }
}

/** `value` as a number above 0, `fallback` when absent; `whole` asks for an integer. */
export function positiveNumber(value: string | undefined, name: string, fallback: number, whole = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n))) {
    throw new Error(`--${name} must be a positive ${whole ? 'whole number' : 'number'}, got "${value}"`);
  }
  return n;
}

/**
 * An agent's command: `readOptions` turns the arguments into the loop's options, or `undefined` for
 * --help (the usage goes to stdout, exit 0). A bad argument prints its problem and the usage and exits
 * 1; otherwise the loop runs, its final answer goes to stdout and its exit code is the command's.
 */
export async function runAgentCommand<T>(
  name: string,
  usage: string,
  readOptions: () => T | undefined,
  run: (options: T) => Promise<AgentResult>,
): Promise<number> {
  let options: T | undefined;
  try {
    options = readOptions();
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message}\n${usage}\n`);
    return 1;
  }
  if (options === undefined) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const result = await run(options);
  if (result.finalText !== null) process.stdout.write(`${result.finalText}\n`);
  return result.exitCode;
}

/**
 * Runs `main` when this file is the process's entry point (not when a test imports it) and exits
 * with its code: background processes the model started must not keep the agent alive.
 */
export function runIfEntryPoint(moduleUrl: string, name: string, main: () => Promise<number>): void {
  if (!isEntryPoint(moduleUrl)) return;
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
