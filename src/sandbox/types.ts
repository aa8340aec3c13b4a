import type Docker from 'dockerode';
/**
 * The sandbox contract: one isolated container (or pod) per rollout. The Docker backend implements it
 * with the local engine; the Kubernetes backend with one Pod per rollout, exec and copy through the API
 * server. Backends are registered in ./registry.ts.
 */

export type NetworkMode = 'none' | 'proxy-only' | 'public';

export interface Resources {
  cpus: number;
  memoryMb: number;
  pids: number;
  /** The container's writable layer at most this size (a task's `storage_mb`); none when absent. */
  storageMb?: number;
}

export interface SandboxSpec {
  runId: string;
  rolloutId: string;
  image: string;
  env?: Record<string, string>;
  workdir?: string;
  resources: Resources;
  /** The run network from `prepareRun` (`none` needs none). */
  network: RunNetwork;
  /** After this many seconds the sandbox ends by itself, so a dead orchestrator leaves nothing for long. */
  lifetimeSec: number;
  labels?: Record<string, string>;
  /** Named volumes mounted into the sandbox, e.g. a harness install shared read-only by every rollout. */
  mounts?: VolumeMount[];
  /** The OCI runtime the sandbox runs under (e.g. runsc); the backend's default when absent. */
  runtime?: string;
  /**
   * Containers started beside the sandbox in its network namespace (a task's mock services): the sandbox
   * reaches each at 127.0.0.1 and by its name, nothing outside the namespace does; removed with the sandbox.
   */
  services?: ServiceContainerSpec[];
  /**
   * Public egress on a proxy-only network for this sandbox alone: from the start (`agent`: a task's
   * `[environment] allow_internet`), or only once `allowInternet()` is called (`verifier`). Backends without
   * `grantsInternet` ignore it.
   */
  internet?: 'agent' | 'verifier';
}

export interface ServiceContainerSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
  /** The sandbox starts only once this passes (Docker's HEALTHCHECK semantics); when running, without one. */
  healthcheck?: { test: string[]; intervalSec: number; timeoutSec: number; retries: number };
}

export interface VolumeMount {
  /** Backend volume name (a Docker named volume). */
  volume: string;
  /** Absolute path inside the sandbox. */
  target: string;
  readOnly: boolean;
  /** The image whose install folder (= target) the volume holds; a cluster mounts or copies it from there. */
  image?: string;
}

export interface ExecOptions {
  /** Killed inside the sandbox (`timeout -k`) after this many seconds. */
  timeoutSec?: number;
  /**
   * What kills the command at `timeoutSec` inside the sandbox: the image's `timeout -k 5` by default, or
   * null when the command keeps its own time (the sealed grader, which trusts no tool of the image). The
   * host gives up on the exec a grace after `timeoutSec` either way.
   */
  timeoutBy?: null;
  env?: Record<string, string>;
  workdir?: string;
  /** Written to the command's stdin (not together with `filesIn`). */
  stdin?: string | Buffer;
  /**
   * Folders removed and made again, empty, before the command starts (and before `filesIn` goes in), in the
   * same exec: e.g. a grader's /tests.
   */
  emptyFirst?: string[];
  /**
   * Files put in place before the command starts, in the same exec. Missing parent folders are made;
   * existing ones keep their owner and mode. The command's stdin is then empty.
   */
  filesIn?: FileToWrite[];
  /**
   * A sandbox path (file or folder) copied into this host folder after the command ends, whatever its exit
   * code or timeout, in the same exec; `ExecResult.copiedOut` says whether it was there. The command's
   * stdout then goes to stderr. The host folder should be new: the copy is found there by its name.
   */
  copyOutAfter?: { sandboxPath: string; hostDir: string };
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** With `copyOutAfter`: whether the path was there and came out. */
  copiedOut?: boolean;
}

export interface CopyOutOptions {
  /** The most bytes (of file content) and entries the copy may bring; none when absent. */
  limits?: CopyLimits;
  /**
   * A trusted busybox inside the sandbox (the verifier's tools) for a backend that packs the copy with a tool
   * in the sandbox (Kubernetes): its tar is used instead of the image's. The Docker engine packs it itself.
   */
  trustedBusybox?: string;
}

export interface CopyLimits {
  maxBytes: number;
  maxEntries: number;
  /** What sets the limits, named in the error (e.g. `collect_limits in run.yaml`). */
  setBy: string;
}

export interface FileToWrite {
  /** Absolute path inside the sandbox. */
  path: string;
  content: string | Buffer;
  mode?: number;
}

export interface Sandbox {
  readonly id: string;
  exec(command: string[], options?: ExecOptions): Promise<ExecResult>;
  /**
   * Copies a host folder's contents into a folder of the sandbox (created if missing). Symbolic links are
   * skipped, unless `symlinksWithin` names a folder: then links into it are followed and others refused.
   */
  copyIn(hostDir: string, sandboxDir: string, options?: { symlinksWithin?: string }): Promise<void>;
  writeFiles(files: FileToWrite[]): Promise<void>;
  /**
   * Copies a sandbox path (file or folder) into a host folder; false when the path does not exist. Past a
   * limit the copy stops with a `CopyLimitError` (what came before it stays on the host).
   */
  copyOut(sandboxPath: string, hostDir: string, options?: CopyOutOptions): Promise<boolean>;
  logs(): Promise<string>;
  /** How many processes the kernel killed for exceeding the memory limit so far. */
  oomKills(): Promise<number>;
  /** Idempotent: removing a sandbox that is gone already is not an error. */
  remove(): Promise<void>;
  /**
   * The sandbox's IP address as the orchestrator's host reaches it (e.g. for a browser task's live view),
   * or undefined when it has none (network `none`). Optional: a backend without host routes leaves it out.
   */
  address?(): Promise<string | undefined>;
  /** Gives the sandbox public egress from now on (a spec with `internet: 'verifier'`, for its grader). */
  allowInternet?(): Promise<void>;
  /** What each service beside the sandbox printed so far, by service name (none without services). */
  serviceLogs?(): Promise<Record<string, string>>;
}

/** Where the proxy must listen so sandboxes of a run can reach it, and how to tear the run down. */
export interface RunNetwork {
  mode: NetworkMode;
  /** Backend-specific network name (Docker network), if any. */
  name?: string;
  /** Address the proxy binds and sandboxes use to reach it; undefined for `none`. */
  proxyHost?: string;
  /** The port the proxy must bind when the backend fixes it (a NetworkPolicy allows only it); any free port otherwise. */
  proxyPort?: number;
  /** Docker, proxy-only: sandboxes borrow the namespace of a network holder instead of joining the network each. */
  lendNamespaces?: boolean;
}

/**
 * What a run expects of its network: how many sandboxes it will create in all, and how many live at once (the
 * rollouts running and the warm pool's). A backend may share set-up work between sandboxes that follow one
 * another when each share would serve several; without a plan it assumes a long run.
 */
export interface NetworkPlan {
  sandboxes: number;
  atOnce: number;
}

export interface ReapReport {
  containers: number;
  networks: number;
}

export interface SandboxBackend {
  /** Its name in run.yaml (`backend:`), as registered (./registry.ts). */
  readonly name: string;
  /** The local Docker engine's client, when the backend runs sandboxes there: images are built on it (otherwise on a client of its own). */
  readonly docker?: Docker;
  /** Whether it gives a sandbox on a proxy-only network the public egress its spec's `internet` asks for. */
  readonly grantsInternet?: boolean;
  /** Whether it starts a sandbox's `services` (a task's mock services); a backend without it refuses such tasks. */
  readonly runsServices?: boolean;
  /** A cap on sandboxes alive at once (a cluster quota), below the run's concurrency; none when absent. */
  readonly maxSandboxes?: number;
  /** Throws a UserError saying how to fix it when the backend cannot be used. */
  check(): Promise<void>;
  /**
   * Why this backend cannot hold a sandbox's disk to `resources.storageMb`, or undefined when it can. Asked
   * before a run whose tasks set storage_mb starts, so none starts with a limit that would not hold.
   */
  storageLimitProblem?(): Promise<string | undefined>;
  /** Throws a UserError saying how to fix it when sandboxes cannot run under this OCI runtime. */
  checkRuntime?(runtime: string): Promise<void>;
  prepareNetwork(runId: string, mode: NetworkMode, plan?: NetworkPlan): Promise<RunNetwork>;
  releaseNetwork(network: RunNetwork): Promise<void>;
  /**
   * A proxy of the run listens on this port at `network.proxyHost`: the run's sandboxes may reach it there. A
   * backend whose proxy-only network lets sandboxes reach nothing of the host but what it opens has it.
   */
  openHostPort?(network: RunNetwork, port: number): Promise<void>;
  create(spec: SandboxSpec): Promise<Sandbox>;
  /** Removes every sandbox and network of one run. */
  removeRun(runId: string): Promise<ReapReport>;
  /** Removes sandboxes and networks whose owning orchestrator process is gone. */
  reap(): Promise<ReapReport>;
  /**
   * Resolves once the backend answers: at once (false) when it does, or true when it had to wait, as through an
   * engine restart, which stops every sandbox. Rejects with a `BackendUnreachableError` after `timeoutMs`, or
   * with the signal's reason. A backend without it is taken to answer.
   */
  waitUntilReachable?(timeoutMs: number, signal: AbortSignal): Promise<boolean>;
}
