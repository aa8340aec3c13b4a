import { existsSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import tar from 'tar-stream';
import { RolloutError } from '../util/errors.js';
import { extractTo } from './docker/archive.js';
import type { ExecOptions, ExecResult, FileToWrite, Sandbox } from './types.js';

/**
 * Files in and a folder out in the same exec as a command. On Docker each copy on its own costs the engine
 * about as much CPU as an exec (~120–160 ms here, most of it starting processes), so a rollout that put its
 * files in, emptied the grader's folders, ran the grader and took /logs out as four operations now does it
 * as one: a shell script in the sandbox empties the folders, unpacks a tar read from stdin, runs the
 * command, and writes a tar of the path to copy out on stdout. It needs `sh` and `tar` in the image; a
 * sandbox whose image has no tar falls back to separate operations ({@link execInParts}).
 */

/** A stderr line the script prints, with its exit code, when it did not run the command. */
const MARK = 'openforge-sandbox:';
const NO_TAR_EXIT = 127;
const SETUP_FAILED_EXIT = 126;

// $1: 1 when stdin carries a tar to unpack at /; $2: a path to copy out after the command ("" for none);
// $3: how many folders to empty first, then those folders, then the command.
const SCRIPT = `u=$1; o=$2; n=$3; shift 3
if [ "$u" = 1 ] || [ -n "$o" ]; then command -v tar >/dev/null 2>&1 || { echo "${MARK} no tar" >&2; exit ${NO_TAR_EXIT}; }; fi
while [ "$n" -gt 0 ]; do rm -rf -- "$1" && mkdir -p -- "$1" || { echo "${MARK} cannot empty $1" >&2; exit ${SETUP_FAILED_EXIT}; }; shift; n=$((n - 1)); done
if [ "$u" = 1 ]; then tar -x -f - -C / || { echo "${MARK} unpacking the files failed" >&2; exit ${SETUP_FAILED_EXIT}; }; exec </dev/null; fi
[ -n "$o" ] || exec "$@"
"$@" >&2; code=$?
d=\${o%/*}; if [ -e "$o" ]; then tar -c -f - -C "\${d:-/}" -- "\${o##*/}" || echo "${MARK} copying $o out failed" >&2; fi
exit $code`;

/**
 * The command run under timeout(1) inside the sandbox, so the process tree really dies with it; as it is
 * when it keeps its own time (`timeoutBy: null`).
 */
export function killedAfter(command: string[], timeoutSec: number | undefined, timeoutBy?: null): string[] {
  return timeoutSec && timeoutBy !== null ? ['timeout', '-k', '5', String(Math.ceil(timeoutSec)), ...command] : command;
}

/** Whether an exec's options ask for files in or a folder out. */
export function carriesFiles(options: ExecOptions): boolean {
  return !!(options.emptyFirst?.length || options.filesIn?.length || options.copyOutAfter);
}

/** The script's command line (wrapping `command`, already given its timeout) and its stdin. */
export async function wrapWithFiles(command: string[], options: ExecOptions): Promise<{ command: string[]; stdin: Buffer | string | undefined }> {
  if (options.filesIn?.length && options.stdin !== undefined) throw new Error('an exec cannot take both stdin and filesIn');
  const unpack = !!options.filesIn?.length;
  const emptied = options.emptyFirst ?? [];
  const wrapped = ['sh', '-c', SCRIPT, 'sh', unpack ? '1' : '0', options.copyOutAfter?.sandboxPath ?? '', String(emptied.length), ...emptied, ...command];
  return { command: wrapped, stdin: unpack ? await tarOfFiles(options.filesIn!) : options.stdin };
}

/**
 * Regular-file entries only: tar makes missing parent folders itself and leaves existing ones (their owner
 * and mode) alone, where a folder entry would reset them.
 */
export async function tarOfFiles(files: FileToWrite[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const f of files) {
    pack.entry({ name: f.path.replace(/^\/+/, ''), mode: f.mode ?? 0o644 }, typeof f.content === 'string' ? Buffer.from(f.content) : f.content);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Where the script's stdout goes when it copies a path out: straight into the host folder. */
export function copyOutSink(options: ExecOptions): { stream: PassThrough; done: Promise<boolean> } | undefined {
  const target = options.copyOutAfter;
  if (!target) return undefined;
  const stream = new PassThrough();
  const copied = path.join(target.hostDir, path.posix.basename(target.sandboxPath));
  const done = extractTo(stream, target.hostDir).then(
    () => existsSync(copied),
    () => false,
  );
  return { stream, done };
}

/** How the script ended when it did not get to run the command. */
export function scriptFailure(exitCode: number, stderr: string): 'no-tar' | string | undefined {
  if (exitCode === NO_TAR_EXIT && stderr.includes(`${MARK} no tar`)) return 'no-tar';
  if (exitCode !== SETUP_FAILED_EXIT) return undefined;
  const line = stderr.split('\n').find((l) => l.startsWith(MARK));
  return line?.slice(MARK.length).trim();
}

/** The script's result as the caller sees it: a setup failure is an infrastructure error, not the command's exit. */
export function settle(result: ExecResult, copiedOut: boolean | undefined, sandboxId: string): ExecResult {
  const failure = scriptFailure(result.exitCode, result.stderr);
  if (failure === 'no-tar')
    throw new RolloutError('infrastructure', `sandbox ${sandboxId.slice(0, 12)} has no tar, which copying files through exec needs: add tar to the image`);
  if (failure !== undefined) throw new RolloutError('infrastructure', `putting files into sandbox ${sandboxId.slice(0, 12)} failed: ${failure}`);
  return copiedOut === undefined ? result : { ...result, copiedOut };
}

/** The same work as separate operations, for an image without tar: empty, copy in, run, copy out. */
export async function execInParts(box: Sandbox, command: string[], options: ExecOptions): Promise<ExecResult> {
  const { emptyFirst, filesIn, copyOutAfter, ...plain } = options;
  if (emptyFirst?.length) {
    const res = await box.exec(['sh', '-c', 'rm -rf -- "$@" && mkdir -p -- "$@"', 'sh', ...emptyFirst]);
    if (res.exitCode !== 0)
      throw new RolloutError('infrastructure', `emptying ${emptyFirst.join(', ')} in sandbox ${box.id.slice(0, 12)} failed: ${res.stderr.trim()}`);
  }
  if (filesIn?.length) await box.writeFiles(filesIn);
  const result = await box.exec(command, plain);
  if (!copyOutAfter) return result;
  return { ...result, copiedOut: await box.copyOut(copyOutAfter.sandboxPath, copyOutAfter.hostDir) };
}
