import { PassThrough } from 'node:stream';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Readable } from 'node:stream';
import { BoundedCollector } from '../../util/bounded-buffer.js';
import { RolloutError, errorMessage } from '../../util/errors.js';
import { extractTo, packAbsolute, packFiles, readTree } from '../docker/archive.js';
import { OOM_KILLS_COMMAND, parseOomKills } from '../oom-kills.js';
import { carriesFiles, copyOutSink, killedAfter, settle, wrapWithFiles } from '../exec-files.js';
import type { CopyOutOptions, ExecOptions, ExecResult, FileToWrite, Sandbox } from '../types.js';
import { CommandNotStartedError } from '../command-not-started.js';
import { execInPod, type PodTarget } from './exec.js';
import type { PodWatch } from './pod-watch.js';

/** Grace the host allows past an in-pod timeout before it gives up on the exec stream. */
const HOST_GRACE_MS = 15_000;
/** How long a broken exec waits for the watch to say why the pod went away. */
const FAILURE_EVENT_WAIT_MS = 3_000;

/**
 * One rollout pod. The exec subresource has no env or working-directory fields, so commands are wrapped
 * (`sh -c 'cd …'`, `env K=V …`); files move as tar streams through exec, as `kubectl cp` does.
 */
export class KubernetesSandbox implements Sandbox {
  constructor(
    private readonly kc: KubeConfig,
    private readonly core: CoreV1Api,
    private readonly target: PodTarget,
    private readonly watch: PodWatch,
  ) {}

  get id(): string {
    return this.target.pod;
  }

  async exec(command: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    const timeoutSec = options.timeoutSec;
    const inDir = options.workdir ? ['sh', '-c', 'cd -- "$1" || exit 126; shift; exec "$@"', 'sh', options.workdir] : [];
    const withEnv = options.env && Object.keys(options.env).length ? ['env', ...Object.entries(options.env).map(([k, v]) => `${k}=${v}`)] : [];
    let full = killedAfter([...inDir, ...withEnv, ...command], timeoutSec, options.timeoutBy);
    let stdin = options.stdin;
    if (carriesFiles(options)) ({ command: full, stdin } = await wrapWithFiles(full, options));
    const sink = copyOutSink(options);
    const stdout = new BoundedCollector();
    const stderr = new BoundedCollector();
    let run: { exitCode: number; hostTimedOut: boolean };
    try {
      run = await this.run(full, {
        stdin: stdin === undefined ? undefined : Buffer.from(stdin),
        stdout: sink?.stream ?? stdout,
        stderr,
        hostTimeoutMs: timeoutSec ? timeoutSec * 1000 + HOST_GRACE_MS : undefined,
      });
    } finally {
      if (sink && !sink.stream.writableEnded) sink.stream.end();
    }
    const { exitCode, hostTimedOut } = run;
    const durationMs = Date.now() - started;
    // timeout(1) exits 124 on TERM, or 137 when it had to KILL after the grace.
    const timedOut = hostTimedOut || (!!timeoutSec && (exitCode === 124 || (exitCode === 137 && durationMs >= timeoutSec * 1000)));
    // copies through exec need tar in the pod whatever happens, so an image without it has no fallback here
    return settle({ exitCode, stdout: stdout.text(), stderr: stderr.text(), timedOut, durationMs }, await sink?.done, this.id);
  }

  async copyIn(hostDir: string, sandboxDir: string, options: { symlinksWithin?: string } = {}): Promise<void> {
    await this.untar(sandboxDir, packFiles(readTree(hostDir, '', options)));
  }

  async writeFiles(files: FileToWrite[]): Promise<void> {
    await this.untar('/', packAbsolute(files));
  }

  /** A tar stream out of an exec: the image's tar, or the trusted busybox's when the options name one. */
  async copyOut(sandboxPath: string, hostDir: string, options: CopyOutOptions = {}): Promise<boolean> {
    const busybox = options.trustedBusybox;
    const exists = await this.exec(busybox ? [busybox, 'test', '-e', sandboxPath] : ['test', '-e', sandboxPath]);
    if (exists.exitCode !== 0) return false;
    const stdout = new PassThrough();
    const stderr = new BoundedCollector();
    const extraction = extractTo(stdout, hostDir, options.limits && { copied: sandboxPath, limits: options.limits });
    const pack = busybox
      ? [busybox, 'sh', '-c', 'p=$2; d=${p%/*}; cd -- "${d:-/}" && exec "$1" tar -c -f - -- "${p##*/}"', 'sh', busybox, sandboxPath]
      : ['sh', '-c', 'cd -- "$(dirname -- "$1")" && exec tar -c -f - -- "$(basename -- "$1")"', 'sh', sandboxPath];
    let exitCode: number;
    try {
      ({ exitCode } = await this.run(pack, {
        stdout,
        stderr,
      }));
    } catch (err) {
      stdout.destroy();
      await extraction.catch(() => undefined);
      throw err;
    }
    if (!stdout.writableEnded) stdout.end();
    await extraction;
    if (exitCode !== 0)
      throw new RolloutError('infrastructure', `copying ${sandboxPath} out of pod ${this.id} failed: tar exited ${exitCode}: ${stderr.text().trim()}`);
    return true;
  }

  async logs(): Promise<string> {
    return this.core.readNamespacedPodLog({ name: this.target.pod, namespace: this.target.namespace, container: this.target.container });
  }

  async oomKills(): Promise<number> {
    const killedPod = this.watch.failure?.reason === 'OOMKilled' ? 1 : 0;
    try {
      return parseOomKills((await this.exec(OOM_KILLS_COMMAND)).stdout) + killedPod;
    } catch {
      return killedPod;
    }
  }

  async remove(): Promise<void> {
    this.watch.stop();
    try {
      await this.core.deleteNamespacedPod({ name: this.target.pod, namespace: this.target.namespace, gracePeriodSeconds: 0 });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }

  /** One exec; a dead pod's failure (OOMKilled, deadline, deleted) replaces the bare stream error. */
  private async run(command: string[], io: Parameters<typeof execInPod>[3]): Promise<{ exitCode: number; hostTimedOut: boolean }> {
    try {
      return await execInPod(this.kc, this.target, command, io);
    } catch (err) {
      const failure = await this.watch.failureWithin(FAILURE_EVENT_WAIT_MS);
      if (failure) throw failure;
      if (err instanceof CommandNotStartedError) throw err;
      throw new RolloutError('infrastructure', `exec in pod ${this.id} failed: ${errorMessage(err)}`);
    }
  }

  private async untar(dir: string, archive: Readable): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    const stderr = new BoundedCollector();
    const { exitCode } = await this.run(['sh', '-c', 'mkdir -p -- "$1" && exec tar -x -f - -C "$1"', 'sh', dir], {
      stdin: Buffer.concat(chunks),
      stdout: new BoundedCollector(),
      stderr,
    });
    if (exitCode !== 0)
      throw new RolloutError('infrastructure', `copying files into ${dir} of pod ${this.id} failed: tar exited ${exitCode}: ${stderr.text().trim()}`);
  }
}
