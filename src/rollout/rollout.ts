import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_COLLECT_FILES, DEFAULT_COLLECT_MB, type RunConfig } from '../config/run.js';
import { REFERENCE_ANSWER, browserSettings, desktopSettings, guiKind, suiteDirOf, type Task } from '../config/task.js';
import type { Harness, HarnessContext } from '../harness/types.js';
import type { ScriptedAnswer } from '../proxy/session.js';
import { CommandNotStartedError } from '../sandbox/command-not-started.js';
import { CopyLimitError } from '../sandbox/copy-limit.js';
import { readTree } from '../sandbox/docker/archive.js';
import { tarOfFiles } from '../sandbox/exec-files.js';
import type { CopyLimits, FileToWrite, RunNetwork, Sandbox, SandboxBackend, SandboxSpec, ServiceContainerSpec, VolumeMount } from '../sandbox/types.js';
import { TRUSTED_BUSYBOX } from '../sandbox/verifier-tools.js';
import type { WarmPool } from '../sandbox/warm-pool.js';
import type { RolloutParent, Store } from '../store/store.js';
import { withDeadline } from '../util/deadline.js';
import { ErrorType, RolloutError, errorMessage } from '../util/errors.js';
import { startBrowserEnvironment } from './browser-environment.js';
import { startDesktopEnvironment } from './desktop-environment.js';
import { ENV_SERVER_URL, environmentPhaseSec, liveViewUrl, newEnvironmentSecrets, type EnvironmentSecrets } from './gui-environment.js';
import { parseReward, type Reward } from './reward.js';
import { rolloutSandboxSpec } from './sandbox-spec.js';
import { networkFailureIn } from './verifier-network.js';
import type { JudgeAccess } from './judge-endpoint.js';
import { atifTrajectory } from '../trajectory/atif.js';
import { harnessVersion } from '../harness/layer.js';
import {
  AGENT_PROCESSES_LEFT,
  GRADER_SETUP_FAILED,
  PRINT_AGENT_START,
  agentKillCommand,
  agentStartTicks,
  graderTimedOut,
  sealedGraderCommand,
} from './sealed-grader.js';
import type { SessionRegistry } from './sessions.js';

export interface RolloutDeps {
  runId: string;
  config: RunConfig;
  harness: Harness;
  backend: SandboxBackend;
  /** Resolves (building when needed) the image a task runs in. */
  taskImage(task: Task): Promise<string>;
  /** Where the task's agent starts and grader runs in that image; `[environment] workdir`, else /workspace, when absent. */
  taskWorkdir?(task: Task, image: string): Promise<string>;
  /** The containers of a task's services, their images built when needed; none when absent. */
  taskServices?(task: Task): Promise<ServiceContainerSpec[]>;
  /** The run's judge (judge: in run.yaml): opened for each rollout's verifier phase alone. */
  judge?: { open(rolloutId: string, artifactsDir: string): JudgeAccess };
  /** Resolves (building when needed) the volumes the harness needs mounted, e.g. its install layer. */
  volumeMounts?(): Promise<VolumeMount[]>;
  store: Store;
  sessions: SessionRegistry;
  network: RunNetwork;
  /** Port of the recording proxy, reachable at network.proxyHost. */
  proxyPort?: number;
  /** Run folder; each rollout writes its artifacts below it. */
  runDir: string;
  signal: AbortSignal;
  /**
   * Debugging (`openforge debug`): the container is left running after the rollout, for this many more
   * seconds at most, so a shell can look inside; whoever set it removes it (by the run's label).
   */
  keepContainerSec?: number;
  /** The rollout these rollouts replay or fork (`openforge replay`, `openforge fork`). */
  parent?: RolloutParent;
  /** Fork: answers the proxy gives the rollout's first policy calls itself (see ProxySession.script). */
  script?: readonly ScriptedAnswer[];
  /** Replay: the script is the whole episode; a policy call past it is ended by the proxy (see ProxySession.endAfterScript). */
  endAfterScript?: boolean;
  /** Called when a browser task's environment is up: where to watch it (noVNC, view-only). */
  onLiveView?(view: LiveView): void;
  /** Resolves true once every upstream serves again (false after `waitMs`): before a rollout that failed at the upstream runs again. */
  waitForUpstream?(waitMs: number, signal: AbortSignal): Promise<boolean>;
}

/** The sandbox a rollout of `task` asks its backend for (also what the warm pool starts ahead of it). */
export function sandboxSpecFor(
  deps: Pick<RolloutDeps, 'runId' | 'config' | 'harness' | 'network' | 'keepContainerSec'>,
  task: Task,
  rolloutId: string,
  image: string,
  mounts: VolumeMount[],
  workdir: string,
  services?: ServiceContainerSpec[],
): SandboxSpec {
  return rolloutSandboxSpec({
    runId: deps.runId,
    rolloutId,
    config: deps.config,
    harness: deps.harness,
    task,
    image,
    workdir,
    mounts,
    network: deps.network,
    keepSec: deps.keepContainerSec,
    services,
  });
}

type WarmDeps = Pick<
  RolloutDeps,
  'runId' | 'config' | 'harness' | 'network' | 'keepContainerSec' | 'taskImage' | 'taskWorkdir' | 'taskServices' | 'volumeMounts' | 'signal'
>;

/** Where a rollout of `task` in `image` works: the agent's start and the grader's working directory. */
export function workdirFor(deps: Pick<RolloutDeps, 'taskWorkdir'>, task: Task, image: string): Promise<string> {
  return deps.taskWorkdir?.(task, image) ?? Promise.resolve(task.config.environment.workdir ?? DEFAULT_WORKDIR);
}

/** Has the warm pool start the sandbox a queued rollout of `task` will ask for; a failure is that rollout's to report. */
export async function warmSandboxFor(pool: WarmPool, deps: WarmDeps, task: Task): Promise<void> {
  try {
    const [image, mounts, services] = await Promise.all([deps.taskImage(task), deps.volumeMounts?.() ?? [], deps.taskServices?.(task) ?? []]);
    const workdir = await workdirFor(deps, task, image);
    if (!deps.signal.aborted) pool.warm(sandboxSpecFor(deps, task, 'warm', image, mounts, workdir, services));
  } catch {
    // the rollout's own image phase reports it
  }
}

export interface LiveView {
  taskId: string;
  sampleIndex: number;
  rolloutId: string;
  url: string;
}

export interface RolloutSlot {
  task: Task;
  sampleIndex: number;
  attempt: number;
  rolloutId: string;
}

export interface RolloutOutcome {
  reward: number | null;
  errorType: ErrorType | null;
  errorMessage: string | null;
  /** True when the agent never started: such failures may be retried. */
  beforeAgent: boolean;
}

const INSTRUCTION_PATH = '/logs/agent/instruction.md';
/** Where graders find the episode as Harbor's ATIF trajectory (Harbor's agents write it there too). */
const TRAJECTORY_PATH = '/logs/agent/trajectory.json';
/** The working directory of a rollout whose deps cannot look into its image (the project's workspace image's). */
const DEFAULT_WORKDIR = '/workspace';
/** Time the host allows the grader's exec past the grader's own timeout: killing the agent's processes, unpacking the tests. */
const KILL_GRACE_SEC = 30;

function collectLimits(config: RunConfig): CopyLimits {
  const limits = config.collect_limits ?? { max_mb: DEFAULT_COLLECT_MB, max_files: DEFAULT_COLLECT_FILES };
  return { maxBytes: limits.max_mb * 2 ** 20, maxEntries: limits.max_files, setBy: 'collect_limits in run.yaml' };
}

/**
 * One rollout, phase by phase: image → start → environment → setup → agent → verify → collect →
 * teardown. Each phase has its own timeout; the verifier runs in the same container after the agent,
 * even when the agent crashed or timed out (the workspace is graded as it was left).
 */
export function runRollout(deps: RolloutDeps, slot: RolloutSlot): Promise<RolloutOutcome> {
  return new RolloutTrial(deps, slot).run();
}

/** What the setup phase hands the agent phase: the harness's context, the files it starts with, its environment. */
interface AgentStart {
  hctx: HarnessContext;
  files: FileToWrite[];
  env: Record<string, string>;
}

/** The state of one rollout as its phases run; `run` is the whole trial, each other method one phase. */
class RolloutTrial {
  private readonly task: Task;
  private readonly artifacts: string;
  /** Milliseconds each phase took, recorded with the rollout. */
  private readonly phases: Record<string, number> = {};
  private sandbox: Sandbox | undefined;
  private secret: string | undefined;
  private agentStarted = false;
  private agentError: RolloutError | undefined;
  private reward: Reward | undefined;
  /** A browser task's env server token and VNC password, once its environment is up. */
  private environmentSecrets: EnvironmentSecrets | undefined;
  /** When the agent's exec began, in the container's clock ticks since boot (./sealed-grader.ts). */
  private agentStartTicks: number | undefined;
  /** Where the agent starts and the grader runs (the image's WORKDIR or `[environment] workdir`). */
  private workdir = DEFAULT_WORKDIR;
  private services: ServiceContainerSpec[] = [];
  /** What of the internet the sandbox was created to have (its spec's `internet`). */
  private sandboxInternet: SandboxSpec['internet'];

  constructor(
    private readonly deps: RolloutDeps,
    private readonly slot: RolloutSlot,
  ) {
    this.task = slot.task;
    this.artifacts = path.join(deps.runDir, slot.task.id, `${slot.sampleIndex}-a${slot.attempt}`);
    mkdirSync(this.artifacts, { recursive: true });
  }

  async run(): Promise<RolloutOutcome> {
    const { deps, slot } = this;
    await deps.store.updateRollout(slot.rolloutId, { status: 'running', startedAt: Date.now() });
    // Stopped (a run interrupted, a rollout cancelled): its container goes now, so the exec in flight ends.
    const onAbort = () => void this.sandbox?.remove().catch(() => undefined);
    deps.signal.addEventListener('abort', onAbort, { once: true });
    try {
      throwIfAborted(deps.signal);
      const { image, mounts } = await this.image();
      throwIfAborted(deps.signal);
      const box = await this.start(image, mounts);
      await this.environment(box);
      const start = await this.setup(box);
      throwIfAborted(deps.signal);
      await this.agent(box, start);
      throwIfAborted(deps.signal);
      await this.refuseUpstreamOutage();
      await this.verify(box);
    } catch (err) {
      if (this.secret) deps.sessions.close(this.secret);
      const failure = deps.signal.aborted ? new RolloutError('cancelled', 'the run was interrupted') : asRolloutError(err);
      const { error } = await this.finish(failure);
      return { reward: null, errorType: error!.type, errorMessage: error!.message, beforeAgent: !this.agentStarted };
    } finally {
      deps.signal.removeEventListener('abort', onAbort);
      if (this.sandbox) await this.collectAndTeardown(this.sandbox);
    }
    const { reward, error } = await this.finish(this.agentError);
    return { reward: reward?.value ?? null, errorType: error?.type ?? null, errorMessage: error?.message ?? null, beforeAgent: false };
  }

  /** image: the task's image and the harness's volumes, built when missing. */
  private async image(): Promise<{ image: string; mounts: VolumeMount[] }> {
    const [image, mounts] = await this.timed('image', this.task.config.environment.build_timeout_sec, 'build', async () => {
      const [image, mounts, services] = await Promise.all([
        this.deps.taskImage(this.task),
        this.deps.volumeMounts?.() ?? [],
        this.deps.taskServices?.(this.task) ?? [],
      ]);
      this.workdir = await workdirFor(this.deps, this.task, image);
      this.services = services;
      return [image, mounts] as const;
    });
    return { image, mounts };
  }

  /** start: the sandbox, from the warm pool or created now. */
  private async start(image: string, mounts: VolumeMount[]): Promise<Sandbox> {
    const { deps, slot } = this;
    const spec = sandboxSpecFor(deps, this.task, slot.rolloutId, image, mounts, this.workdir, this.services);
    this.sandboxInternet = spec.internet;
    const box = await this.timed('start', deps.config.timeouts.start_sec, 'infrastructure', () => deps.backend.create(spec));
    this.sandbox = box;
    await this.log('phase', `started container ${box.id.slice(0, 12)} from ${image}`);
    return box;
  }

  /** environment (browser and desktop tasks): display, VNC, sites or apps and env server, then the episode's first observation. */
  private async environment(box: Sandbox): Promise<void> {
    const browser = browserSettings(this.task);
    const desktop = desktopSettings(this.task);
    if (!browser && !desktop) return;
    const secrets = newEnvironmentSecrets();
    this.environmentSecrets = secrets;
    const what = await this.timed('environment', environmentPhaseSec(this.task), 'environment_setup', async () =>
      browser
        ? `browser environment up at ${(await startBrowserEnvironment(box, browser, secrets)).url}`
        : `desktop environment up (${(await startDesktopEnvironment(box, desktop!, secrets)).title || 'no window focused'})`,
    );
    const address = await box.address?.();
    if (address) {
      const url = liveViewUrl(address, secrets.vncPassword);
      await this.log('live_view', url);
      this.deps.onLiveView?.({ taskId: this.task.id, sampleIndex: this.slot.sampleIndex, rolloutId: this.slot.rolloutId, url });
    }
    await this.log('phase', what);
  }

  /** setup: the rollout's proxy session, the harness's config files and the instruction. */
  private setup(box: Sandbox): Promise<AgentStart> {
    const { deps, slot, task } = this;
    const { config, harness } = deps;
    return this.timed('setup', config.timeouts.setup_sec, 'infrastructure', async () => {
      if (harness.usesModel) {
        if (!deps.network.proxyHost || !deps.proxyPort)
          throw new RolloutError('infrastructure', `network mode ${deps.network.mode} leaves no route to the proxy`);
        this.secret = deps.sessions.open({
          rolloutId: slot.rolloutId,
          runId: deps.runId,
          taskId: task.id,
          maxPolicyCalls: harness.maxTurnsAtProxy ? config.max_turns : undefined,
          script: deps.script,
          endAfterScript: deps.endAfterScript,
        }).secret;
      }
      const secret = this.secret;
      const hctx: HarnessContext = {
        task,
        secret: secret ?? '',
        proxyBaseUrl: secret ? `http://${deps.network.proxyHost}:${deps.proxyPort}/s/${secret}/v1` : '',
        model: config.model.name,
        maxTurns: config.max_turns,
        instructionPath: INSTRUCTION_PATH,
        workdir: this.workdir,
        environmentToken: this.environmentSecrets?.envToken,
        environment: this.environmentSecrets
          ? { kind: guiKind(task) ?? 'browser', mcpUrl: `${ENV_SERVER_URL}/mcp`, token: this.environmentSecrets.envToken }
          : undefined,
      };
      const setup = harness.setup(hctx);
      // the files go in with the agent's own exec; a copy of an empty folder, which makes only the folder, on its own
      const files: FileToWrite[] = [{ path: INSTRUCTION_PATH, content: task.instruction }, ...setup.files];
      for (const c of setup.copies) {
        const tree = filesOf(c.hostDir, c.sandboxDir, taskLinks(task, c.hostDir));
        if (tree.length) files.push(...tree);
        else await box.copyIn(c.hostDir, c.sandboxDir);
      }
      return { hctx, files, env: { ...setup.env, ...config.harness_env } };
    });
  }

  /** agent: the harness's headless command, under the agent timeout; how it ended is kept for the outcome. */
  private async agent(box: Sandbox, start: AgentStart): Promise<void> {
    const { deps } = this;
    const agentSec = deps.config.timeouts.agent_sec ?? this.task.config.agent.timeout_sec;
    const oomBefore = await box.oomKills();
    this.agentStarted = true;
    const agentStartedAt = Date.now();
    const agentRes = await box
      .exec(agentCommand(deps.harness.command(start.hctx)), {
        timeoutSec: agentSec,
        env: start.env,
        workdir: this.workdir,
        filesIn: start.files,
      })
      .catch(async (err: unknown) => {
        // The exec itself failed (the container stopped, the engine went away). When the command never started,
        // or the agent made no model call, nothing of it was recorded: a retry repeats nothing.
        if (err instanceof CommandNotStartedError || (this.secret && (await this.callsRecorded()) === 0)) this.agentStarted = false;
        throw err;
      });
    this.phases.agent = Date.now() - agentStartedAt;
    this.agentStartTicks = agentStartTicks(agentRes.stdout);
    if (this.secret) deps.sessions.close(this.secret);
    const oomKilled = (await box.oomKills()) > oomBefore;
    if (agentRes.timedOut) this.agentError = new RolloutError('agent_timeout', `the harness ran past the agent timeout of ${agentSec} s and was killed`);
    else if (oomKilled)
      this.agentError = new RolloutError('oom_killed', `a process was killed for exceeding the container's memory limit (harness exit ${agentRes.exitCode})`);
    else if (agentRes.exitCode !== 0) this.agentError = new RolloutError('harness_crash', `the harness exited with code ${agentRes.exitCode}`);
    await this.log('agent', `exit ${agentRes.exitCode} after ${this.phases.agent} ms${this.agentError ? ` (${this.agentError.type})` : ''}`);
  }

  /**
   * A rollout whose policy calls failed at the upstream saw an outage, not a task: it is not graded (its
   * reward would train the policy on a fault that was not its own) and ends as `upstream_error`, retried.
   */
  private async refuseUpstreamOutage(): Promise<void> {
    if (!this.secret) return;
    await this.deps.store.flush();
    const failed = await this.deps.store.upstreamFailures(this.slot.rolloutId);
    if (failed.length === 0) return;
    const first = failed[0]!;
    throw new RolloutError(
      'upstream_error',
      `${failed.length} policy call${failed.length > 1 ? 's' : ''} failed at the upstream (call ${first.seq}: ${first.error ?? `HTTP ${first.status}`})${this.agentError ? `; the harness then ended with ${this.agentError.type}: ${this.agentError.message}` : ''}`,
    );
  }

  /**
   * verify: the sealed grader (./sealed-grader.ts) kills what the agent left running, empties /tests and
   * /logs/verifier, puts the tests in and runs them with the verifier's own tools; the grader's files then
   * come out through the engine, and the reward is read from them.
   */
  private async verify(box: Sandbox): Promise<void> {
    const verifierSec = this.deps.config.timeouts.verifier_sec ?? this.task.config.verifier.timeout_sec;
    const verifyStarted = Date.now();
    const tests = await tarOfFiles([
      ...filesOf(this.task.testsDir, '/tests', taskLinks(this.task, this.task.testsDir)),
      ...(await this.trajectoryFile()),
      ...(await this.serviceAudits(box)),
    ]);
    await this.verifierInternet(box);
    const judge = this.deps.judge?.open(this.slot.rolloutId, this.artifacts);
    const res = await box
      .exec(
        sealedGraderCommand({
          agentStartTicks: this.agentStartTicks,
          timeoutSec: verifierSec,
          workdir: this.workdir,
          env: { ...this.task.config.verifier.env, ...judge?.env },
        }),
        { stdin: tests, timeoutSec: verifierSec + KILL_GRACE_SEC, timeoutBy: null },
      )
      .finally(() => judge?.close());
    if (res.exitCode === AGENT_PROCESSES_LEFT || res.exitCode === GRADER_SETUP_FAILED) {
      throw new RolloutError('infrastructure', `the grader could not start: ${res.stderr.trim().slice(-500)}`);
    }
    await rm(path.join(this.artifacts, 'verifier'), { recursive: true, force: true });
    await this.copyOut(box, '/logs/verifier', this.artifacts, 'verifier_failure');
    this.phases.verify = Date.now() - verifyStarted;
    const { json, txt } = rewardFilesIn(path.join(this.artifacts, 'verifier')) ?? (await rewardFilesInside(box));
    try {
      if (res.timedOut || graderTimedOut(res.exitCode, res.durationMs, verifierSec)) {
        throw new RolloutError('verifier_failure', `the grader ran past its timeout of ${verifierSec} s`);
      }
      this.reward = parseReward(txt, json);
    } catch (err) {
      this.throwIfNetworkFailed();
      const suffix = res.exitCode !== 0 ? ` (test.sh exited ${res.exitCode})` : '';
      throw err instanceof RolloutError ? new RolloutError(err.type, err.message + suffix) : err;
    }
    if (this.reward.value === 0) this.throwIfNetworkFailed();
  }

  /**
   * The rollout's ATIF trajectory from the proxy's records (any harness), put in with the tests at
   * /logs/agent/trajectory.json for graders that read the episode; collected with the agent's logs. Harbor's
   * oracle has no calls: its trajectory is the instruction and, where the solution has one, its answer.md as
   * the final answer (what sim:oracle says too), so graders that read what the agent says validate.
   */
  private async trajectoryFile(): Promise<FileToWrite[]> {
    let finalAnswer: string | undefined;
    if (!this.deps.harness.usesModel) {
      const answer = this.task.solutionDir && path.join(this.task.solutionDir, REFERENCE_ANSWER);
      if (this.deps.harness.name !== 'oracle' || !answer || !existsSync(answer)) return [];
      finalAnswer = readFileSync(answer, 'utf8').trim();
    }
    await this.deps.store.flush();
    const calls = finalAnswer === undefined ? await this.deps.store.listCalls(this.slot.rolloutId) : [];
    const trajectory = atifTrajectory({
      rolloutId: this.slot.rolloutId,
      harness: this.deps.harness.name,
      harnessVersion: harnessVersion(this.deps.harness),
      instruction: this.task.instruction,
      calls,
      ...(finalAnswer !== undefined ? { finalAnswer } : {}),
    });
    return [{ path: TRAJECTORY_PATH, content: JSON.stringify(trajectory, null, 2) }];
  }

  /**
   * `[verifier] allow_internet` on a proxy-only network: the agent's leftover processes are killed first (the
   * grader kills again, finding none), then the sandbox is given public egress for the grader alone.
   */
  private async verifierInternet(box: Sandbox): Promise<void> {
    if (!box.allowInternet || this.sandboxInternet !== 'verifier') return;
    const killed = await box.exec(agentKillCommand(this.agentStartTicks), { timeoutSec: 30, timeoutBy: null });
    if (killed.exitCode !== 0)
      throw new RolloutError('infrastructure', `the agent's processes could not be stopped before the grader: ${killed.stderr.trim().slice(-300)}`);
    await box.allowInternet();
    await this.log('verifier', 'the grader has the internet ([verifier] allow_internet)');
  }

  /**
   * Each service's audit log (`x-openforge-audit`), fetched now that the agent is done, through the verifier's
   * own wget in the rollout's namespace: put in with the tests at /logs/services/<name>/audit.json (after the
   * agent's leftover processes are killed, so none can replace it) and kept with the artifacts.
   */
  private async serviceAudits(box: Sandbox): Promise<FileToWrite[]> {
    const files: FileToWrite[] = [];
    for (const service of this.task.services ?? []) {
      if (!service.auditUrl) continue;
      const res = await box.exec([TRUSTED_BUSYBOX, 'wget', '-q', '-O', '-', service.auditUrl], { timeoutSec: 30 });
      if (res.exitCode !== 0) {
        throw new RolloutError(
          'infrastructure',
          `the audit log of the task's service ${service.name} could not be fetched from ${service.auditUrl}: ${res.stderr.trim().slice(-300) || `wget exited ${res.exitCode}`}`,
        );
      }
      const dir = path.join(this.artifacts, 'services', service.name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'audit.json'), res.stdout);
      files.push({ path: `/logs/services/${service.name}/audit.json`, content: res.stdout });
    }
    return files;
  }

  /**
   * A grader that scored 0 (or nothing) because it could not reach the internet it fetches its tools from
   * has graded nothing: that is the verifier's infrastructure failing, not the agent's reward.
   */
  private throwIfNetworkFailed(): void {
    const dir = path.join(this.artifacts, 'verifier');
    const output = ['test-stdout.txt', 'test-stderr.txt'].map((f) => readIfThere(path.join(dir, f))).join('\n');
    const failure = networkFailureIn(output);
    if (!failure) return;
    this.reward = undefined;
    throw new RolloutError(
      'infrastructure',
      `the grader could not reach the network it needs (the verifier phase has no internet here): ${failure} — see verifier/test-stdout.txt; its reward is not counted`,
    );
  }

  /** collect: the agent's logs and transcripts, within the run's limits; false (and an event) when that failed. */
  private async collect(box: Sandbox): Promise<boolean> {
    try {
      await this.timed('collect', this.deps.config.timeouts.collect_sec, 'infrastructure', async () => {
        await this.copyOut(box, '/logs/agent', this.artifacts, undefined);
        for (const p of this.deps.harness.transcriptPaths.filter((p) => !p.startsWith('/logs/')))
          await this.copyOut(box, p, path.join(this.artifacts, 'agent', 'transcript'), undefined);
        for (const [name, text] of Object.entries((await box.serviceLogs?.()) ?? {})) {
          mkdirSync(path.join(this.artifacts, 'services', name), { recursive: true });
          writeFileSync(path.join(this.artifacts, 'services', name, 'log.txt'), text);
        }
      });
      return true;
    } catch (err) {
      await this.log('collect', `collecting artifacts failed: ${errorMessage(err)}`);
      return false;
    }
  }

  /**
   * A copy out of the sandbox within the run's collect limits. Past them the copy stops: an event names the
   * limit, and the rollout fails with `failAs` when what was cut is needed (the grader's files).
   */
  private async copyOut(box: Sandbox, sandboxPath: string, hostDir: string, failAs: ErrorType | undefined): Promise<void> {
    try {
      await box.copyOut(sandboxPath, hostDir, { limits: collectLimits(this.deps.config), trustedBusybox: TRUSTED_BUSYBOX });
    } catch (err) {
      if (!(err instanceof CopyLimitError)) throw err;
      await this.log('collect', err.message);
      if (failAs) throw new RolloutError(failAs, err.message);
    }
  }

  /** collect (when verify did not), then teardown: the sandbox removed, or kept for debugging. */
  private async collectAndTeardown(box: Sandbox): Promise<void> {
    await this.collect(box);
    if (this.deps.keepContainerSec) {
      await this.log('container', `kept container ${box.id.slice(0, 12)} for debugging: openforge shell ${this.slot.rolloutId}`);
      return;
    }
    await this.timed('teardown', this.deps.config.timeouts.teardown_sec, 'infrastructure', () => box.remove()).catch((err) =>
      this.log('teardown', errorMessage(err)),
    );
  }

  /**
   * The rollout's result.json (and exception.txt), and its row in the store, once every call it made is
   * stored. A rollout a call of which could not be stored is an infrastructure failure with no reward: its
   * record is not whole, so it must not become training data.
   */
  private async finish(agentOrPhaseError: RolloutError | undefined): Promise<{ reward: Reward | undefined; error: RolloutError | undefined }> {
    const { deps, slot, task } = this;
    // whoever sees the rollout ended (the rollout service's samples, a resumed run) sees all its calls
    await deps.store.flush();
    const lost = deps.store.lostRecords(slot.rolloutId);
    const error = lost.length
      ? new RolloutError(
          'infrastructure',
          `${lost.length} model call${lost.length > 1 ? 's' : ''} of this rollout could not be recorded (call ${lost.map((l) => l.seq).join(', ')}: ${lost[0]!.error})`,
        )
      : agentOrPhaseError;
    const reward = lost.length ? undefined : this.reward;
    const record = {
      task_id: task.id,
      sample_index: slot.sampleIndex,
      attempt: slot.attempt,
      rollout_id: slot.rolloutId,
      harness: deps.harness.name,
      reward: reward?.value ?? null,
      reward_details: reward?.details ?? null,
      error_type: error?.type ?? null,
      error_message: error?.message ?? null,
      phases_ms: this.phases,
    };
    writeFileSync(path.join(this.artifacts, 'result.json'), JSON.stringify(record, null, 2));
    if (error) writeFileSync(path.join(this.artifacts, 'exception.txt'), `${error.type}: ${error.message}\n`);
    await deps.store.updateRollout(slot.rolloutId, {
      status: reward ? 'finished' : 'error',
      reward: reward?.value ?? null,
      rewardDetails: reward?.details ?? null,
      errorType: error?.type ?? null,
      errorMessage: error?.message ?? null,
      finishedAt: Date.now(),
      phases: this.phases,
    });
    return { reward, error };
  }

  /** Runs a phase under its deadline, recording how long it took. */
  private async timed<T>(name: string, limitSec: number, type: ErrorType, fn: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await withDeadline(fn(), limitSec * 1000, () => new RolloutError(type, `${name} phase exceeded ${limitSec} s`));
    } finally {
      this.phases[name] = Date.now() - started;
    }
  }

  private log(kind: string, message: string): Promise<unknown> {
    return this.deps.store.addEvent(this.slot.rolloutId, kind, message).catch(() => undefined);
  }

  private async callsRecorded(): Promise<number> {
    await this.deps.store.flush();
    return (await this.deps.store.countCalls([this.slot.rolloutId])).get(this.slot.rolloutId) ?? 0;
  }
}

/** A folder of the task (tests/, solution/) may link to its suite's shared files; other folders keep links skipped. */
function taskLinks(task: Task, hostDir: string): { symlinksWithin?: string } {
  const suite = suiteDirOf(task);
  const rel = path.relative(suite, path.resolve(hostDir));
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? { symlinksWithin: suite } : {};
}

/**
 * The agent's command, its output to files inside the sandbox rather than the exec stream (a background
 * process the agent left behind may hold its stdout open forever, which would keep the exec from ending),
 * after the line that marks when the agent's processes began (./sealed-grader.ts).
 */
function agentCommand(command: string[]): string[] {
  return ['sh', '-c', `${PRINT_AGENT_START}; mkdir -p /logs/agent && exec "$@" >/logs/agent/stdout.txt 2>/logs/agent/stderr.txt </dev/null`, 'sh', ...command];
}

function asRolloutError(err: unknown): RolloutError {
  if (err instanceof RolloutError) return err;
  return new RolloutError('infrastructure', errorMessage(err));
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new RolloutError('cancelled', 'the run was interrupted');
}

/** A host folder's files as files to write below `sandboxDir`. */
function filesOf(hostDir: string, sandboxDir: string, options: { symlinksWithin?: string }): FileToWrite[] {
  return readTree(hostDir, '', options).map((f) => ({ path: path.posix.join(sandboxDir, f.name), content: f.content, mode: f.mode }));
}

/** The grader's reward files as collected to the host; undefined when neither is there as a plain file. */
function rewardFilesIn(verifierDir: string): { json: string | null; txt: string | null } | undefined {
  const read = (name: string) => {
    const file = path.join(verifierDir, name);
    return statSync(file, { throwIfNoEntry: false })?.isFile() ? readFileSync(file, 'utf8') : null;
  };
  const files = { json: read('reward.json'), txt: read('reward.txt') };
  return files.json === null && files.txt === null ? undefined : files;
}

/**
 * The grader's reward files read inside the sandbox with the trusted busybox, when none came out as a plain
 * file (the copy skips symbolic links, which a grader may leave).
 */
async function rewardFilesInside(box: Sandbox): Promise<{ json: string | null; txt: string | null }> {
  const read = 'B=$1; $B cat /logs/verifier/reward.json 2>/dev/null; printf "\\0"; $B cat /logs/verifier/reward.txt 2>/dev/null';
  const out = await box.exec([TRUSTED_BUSYBOX, 'sh', '-c', read, 'sh', TRUSTED_BUSYBOX], { timeoutSec: 30, timeoutBy: null });
  const [json, txt] = out.stdout.split('\0');
  return { json: json || null, txt: txt || null };
}

function readIfThere(file: string): string {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ? readFileSync(file, 'utf8').slice(0, 256 * 1024) : '';
}
