import type { Duplex, Writable } from 'node:stream';
import type Docker from 'dockerode';
import { BoundedCollector } from '../../util/bounded-buffer.js';
import type { CopyOutOptions, ExecOptions, ExecResult, FileToWrite, Sandbox } from '../types.js';
import { extractTo, packAbsolute, packFiles, readTree } from './archive.js';
import { isGone, statusOf } from './errors.js';
import { CommandNotStartedError } from '../command-not-started.js';
import { errorMessage } from '../../util/errors.js';
import { OOM_KILLS_COMMAND, parseOomKills } from '../oom-kills.js';
import { hostOomKills } from './host-cgroup.js';
import { removeServices, serviceLog } from './services.js';
import { carriesFiles, copyOutSink, execInParts, scriptFailure, settle, killedAfter, wrapWithFiles } from '../exec-files.js';

/** Grace the host allows past an in-container timeout before it gives up on the exec stream. */
const HOST_GRACE_MS = 15_000;

/** The network namespace a sandbox borrowed (see NetworkHolders): its address, and how to return it. */
export interface BorrowedNetwork {
  address: string | undefined;
  /** Called once the container is gone. */
  giveBack: () => void;
}

export class DockerSandbox implements Sandbox {
  constructor(
    private readonly docker: Docker,
    private readonly container: Docker.Container,
    private readonly borrowed?: BorrowedNetwork,
    /** The task's services in its network namespace, by name: removed with it. */
    private readonly services?: ReadonlyMap<string, Docker.Container>,
    /** The network `allowInternet` connects it to; undefined when it is not to be given the internet later. */
    private readonly internetNetwork?: string,
  ) {}

  get id(): string {
    return this.container.id;
  }

  /** Set once an exec carrying files found no tar in the image: later ones go as separate operations at once. */
  private noTar = false;

  async exec(command: string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (!carriesFiles(options)) return this.run(command, options);
    if (this.noTar) return execInParts(this, command, options);
    const wrapped = await wrapWithFiles(killedAfter(command, options.timeoutSec, options.timeoutBy), options);
    const sink = copyOutSink(options);
    let result: ExecResult;
    try {
      result = await this.run(wrapped.command, { ...options, stdin: wrapped.stdin }, { stdout: sink?.stream, timeoutAdded: true });
    } finally {
      sink?.stream.end();
    }
    const copiedOut = await sink?.done;
    if (scriptFailure(result.exitCode, result.stderr) === 'no-tar') {
      this.noTar = true;
      return execInParts(this, command, options);
    }
    return settle(result, copiedOut, this.id);
  }

  /** One engine exec. `stdout` replaces the bounded text collector (a copy-out's tar stream). */
  private async run(command: string[], options: ExecOptions, raw: { stdout?: Writable; timeoutAdded?: boolean } = {}): Promise<ExecResult> {
    const started = Date.now();
    const timeoutSec = options.timeoutSec;
    const cmd = raw.timeoutAdded ? command : killedAfter(command, timeoutSec, options.timeoutBy);
    let exec: Docker.Exec;
    let stream: Duplex;
    try {
      exec = await this.container.exec({
        Cmd: cmd,
        AttachStdout: true,
        AttachStderr: true,
        AttachStdin: options.stdin !== undefined,
        Env: options.env ? Object.entries(options.env).map(([k, v]) => `${k}=${v}`) : undefined,
        WorkingDir: options.workdir,
      });
      stream = await exec.start({ hijack: true, stdin: options.stdin !== undefined });
    } catch (err) {
      throw new CommandNotStartedError(errorMessage(err));
    }
    const stdout = raw.stdout ? undefined : new BoundedCollector();
    const stderr = new BoundedCollector();
    this.docker.modem.demuxStream(stream, raw.stdout ?? stdout!, stderr);
    if (options.stdin !== undefined) stream.end(options.stdin);

    let hostTimedOut = false;
    await new Promise<void>((resolve, reject) => {
      const guard = timeoutSec
        ? setTimeout(
            () => {
              hostTimedOut = true;
              stream.destroy();
              resolve();
            },
            timeoutSec * 1000 + HOST_GRACE_MS,
          )
        : undefined;
      const finish = (err?: Error) => {
        if (guard) clearTimeout(guard);
        if (err && !hostTimedOut) reject(err);
        else resolve();
      };
      stream.on('end', () => finish());
      stream.on('close', () => finish());
      stream.on('error', finish);
    });
    const durationMs = Date.now() - started;
    const info = hostTimedOut ? undefined : await exec.inspect();
    const exitCode = info?.ExitCode ?? 137;
    // timeout(1) exits 124 on TERM, or 137 when it had to KILL after the grace.
    const timedOut = hostTimedOut || (!!timeoutSec && (exitCode === 124 || (exitCode === 137 && durationMs >= timeoutSec * 1000)));
    return { exitCode, stdout: stdout?.text() ?? '', stderr: stderr.text(), timedOut, durationMs };
  }

  async copyIn(hostDir: string, sandboxDir: string, options: { symlinksWithin?: string } = {}): Promise<void> {
    // the engine's stat of a path costs it a file lookup; the mkdir an exec, only when needed
    if (!(await this.exists(sandboxDir))) await this.exec(['mkdir', '-p', sandboxDir]);
    await this.container.putArchive(packFiles(readTree(hostDir, '', options)), { path: sandboxDir });
  }

  private async exists(sandboxPath: string): Promise<boolean> {
    try {
      const answer = (await this.container.infoArchive({ path: sandboxPath })) as unknown as NodeJS.ReadableStream;
      answer.resume();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  }

  async writeFiles(files: FileToWrite[]): Promise<void> {
    await this.container.putArchive(packAbsolute(files), { path: '/' });
  }

  /** Through the engine's archive API: the engine reads the container's filesystem itself, with no tool of the image. */
  async copyOut(sandboxPath: string, hostDir: string, options: CopyOutOptions = {}): Promise<boolean> {
    try {
      const stream = await this.container.getArchive({ path: sandboxPath });
      await extractTo(stream, hostDir, options.limits && { copied: sandboxPath, limits: options.limits });
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  }

  async logs(): Promise<string> {
    const buf = (await this.container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    return buf.toString('utf8');
  }

  async oomKills(): Promise<number> {
    const fromHost = await hostOomKills(this.container.id);
    if (fromHost !== undefined) return fromHost;
    return parseOomKills((await this.exec(OOM_KILLS_COMMAND)).stdout);
  }

  async address(): Promise<string | undefined> {
    if (this.borrowed) return this.borrowed.address;
    const info = await this.container.inspect();
    const networks = Object.values(info.NetworkSettings?.Networks ?? {});
    return networks.map((n) => n.IPAddress).find((ip) => !!ip);
  }

  async allowInternet(): Promise<void> {
    if (!this.internetNetwork) throw new Error('this sandbox was not created to be given the internet later (spec.internet)');
    await this.docker.getNetwork(this.internetNetwork).connect({ Container: this.container.id });
  }

  async serviceLogs(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [name, c] of this.services ?? []) out[name] = await serviceLog(c).catch((err: unknown) => `(its log could not be read: ${errorMessage(err)})`);
    return out;
  }

  async remove(): Promise<void> {
    if (this.services) await removeServices([...this.services.values()]);
    try {
      await this.container.remove({ force: true, v: true });
    } catch (err) {
      if (!isGone(err)) throw err;
    }
    // gone with every process in it: the namespace may go to the next rollout
    this.borrowed?.giveBack();
  }
}
