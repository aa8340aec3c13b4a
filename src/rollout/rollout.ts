import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunConfig } from '../config/run.js';
import { browserSettings, suiteDirOf, type Task } from '../config/task.js';
import type { Harness, HarnessContext } from '../harness/types.js';
import type { ScriptedAnswer } from '../proxy/session.js';
import { CommandNotStartedError } from '../sandbox/command-not-started.js';
import { readTree } from '../sandbox/docker/archive.js';
import type { ExecResult, FileToWrite, RunNetwork, Sandbox, SandboxBackend, SandboxSpec, VolumeMount } from '../sandbox/types.js';
import type { WarmPool } from '../sandbox/warm-pool.js';
import type { RolloutParent, Store } from '../store/store.js';
import { withDeadline } from '../util/deadline.js';
import { ErrorType, RolloutError, errorMessage } from '../util/errors.js';
import { environmentPhaseSec, liveViewUrl, startBrowserEnvironment } from './browser-environment.js';
import { parseReward, type Reward } from './reward.js';
import { rolloutSandboxSpec } from './sandbox-spec.js';
import type { SessionRegistry } from './sessions.js';

export interface RolloutDeps {
  runId: string;
  config: RunConfig;
  harness: Harness;
  backend: SandboxBackend;
  /** Resolves (building when needed) the image a task runs in. */
  taskImage(task: Task): Promise<string>;
  /** Resolves (building when needed) the volumes the harness needs mounted, e.g. its install layer. */
  harnessMounts?(): Promise<VolumeMount[]>;
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
}

/** The sandbox a rollout of `task` asks its backend for (also what the warm pool starts ahead of it). */
export function sandboxSpecFor(deps: Pick<RolloutDeps, 'runId' | 'config' | 'harness' | 'network' | 'keepContainerSec'>, task: Task, rolloutId: string, image: string, mounts: VolumeMount[]): SandboxSpec {
  return rolloutSandboxSpec({ runId: deps.runId, rolloutId, config: deps.config, harness: deps.harness, task, image, mounts, network: deps.network, keepSec: deps.keepContainerSec });
}

type WarmDeps = Pick<RolloutDeps, 'runId' | 'config' | 'harness' | 'network' | 'keepContainerSec' | 'taskImage' | 'harnessMounts' | 'signal'>;

/** Has the warm pool start the sandbox a queued rollout of `task` will ask for; a failure is that rollout's to report. */
export async function warmSandboxFor(pool: WarmPool, deps: WarmDeps, task: Task): Promise<void> {
  try {
    const [image, mounts] = await Promise.all([deps.taskImage(task), deps.harnessMounts?.() ?? []]);
    if (!deps.signal.aborted) pool.warm(sandboxSpecFor(deps, task, 'warm', image, mounts));
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

/**
 * One rollout, phase by phase: image → start → setup → agent → verify → collect → teardown. Each phase
 * has its own timeout; the verifier runs in the same container after the agent, even when the agent
 * crashed or timed out (the workspace is graded as it was left).
 */
export async function runRollout(deps: RolloutDeps, slot: RolloutSlot): Promise<RolloutOutcome> {
  const { config, harness, store, task } = { ...deps, task: slot.task };
  const phases: Record<string, number> = {};
  const artifacts = path.join(deps.runDir, task.id, `${slot.sampleIndex}-a${slot.attempt}`);
  mkdirSync(artifacts, { recursive: true });
  const log = (kind: string, message: string) => store.addEvent(slot.rolloutId, kind, message).catch(() => undefined);
  const timed = async <T>(name: string, limitSec: number, type: ErrorType, fn: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await withDeadline(fn(), limitSec * 1000, () => new RolloutError(type, `${name} phase exceeded ${limitSec} s`));
    } finally {
      phases[name] = Date.now() - started;
    }
  };

  let sandbox: Sandbox | undefined;
  let secret: string | undefined;
  let agentStarted = false;
  let agentError: RolloutError | undefined;
  let reward: Reward | undefined;
  let logsCollected = false;
  await store.updateRollout(slot.rolloutId, { status: 'running', startedAt: Date.now() });
  try {
    throwIfAborted(deps.signal);
    const [image, mounts] = await timed('image', task.config.environment.build_timeout_sec, 'build', () =>
      Promise.all([deps.taskImage(task), deps.harnessMounts?.() ?? []]),
    );
    throwIfAborted(deps.signal);
    const agentSec = config.timeouts.agent_sec ?? task.config.agent.timeout_sec;
    const verifierSec = config.timeouts.verifier_sec ?? task.config.verifier.timeout_sec;
    const browser = browserSettings(task);
    const environmentSec = environmentPhaseSec(task);
    sandbox = await timed('start', config.timeouts.start_sec, 'infrastructure', () =>
      deps.backend.create(sandboxSpecFor(deps, task, slot.rolloutId, image, mounts)),
    );
    const box = sandbox;
    await log('phase', `started container ${box.id.slice(0, 12)} from ${image}`);

    // ── environment ── (browser tasks: display, VNC, sites and env server, then the episode's first page)
    if (browser) {
      const page = await timed('environment', environmentSec, 'environment_setup', () => startBrowserEnvironment(box, browser));
      const address = await box.address?.();
      if (address) {
        const url = liveViewUrl(address);
        await log('live_view', url);
        deps.onLiveView?.({ taskId: task.id, sampleIndex: slot.sampleIndex, rolloutId: slot.rolloutId, url });
      }
      await log('phase', `browser environment up at ${page.url}`);
    }

    const ctx = await timed('setup', config.timeouts.setup_sec, 'infrastructure', async () => {
      if (harness.usesModel) {
        if (!deps.network.proxyHost || !deps.proxyPort) throw new RolloutError('infrastructure', `network mode ${deps.network.mode} leaves no route to the proxy`);
        secret = deps.sessions.open({
          rolloutId: slot.rolloutId,
          runId: deps.runId,
          taskId: task.id,
          maxPolicyCalls: harness.maxTurnsAtProxy ? config.max_turns : undefined,
          script: deps.script,
          endAfterScript: deps.endAfterScript,
        }).secret;
      }
      const hctx: HarnessContext = {
        task,
        secret: secret ?? '',
        proxyBaseUrl: secret ? `http://${deps.network.proxyHost}:${deps.proxyPort}/s/${secret}/v1` : '',
        model: config.model.name,
        maxTurns: config.max_turns,
        instructionPath: INSTRUCTION_PATH,
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

    // ── agent ──
    throwIfAborted(deps.signal);
    const oomBefore = await box.oomKills();
    agentStarted = true;
    const agentStartedAt = Date.now();
    const agentRes = await box
      .exec(redirected(harness.command(ctx.hctx), '/logs/agent/stdout.txt', '/logs/agent/stderr.txt'), {
        timeoutSec: agentSec,
        env: ctx.env,
        workdir: '/workspace',
        filesIn: ctx.files,
      })
      .catch(async (err: unknown) => {
        // The exec itself failed (the container stopped, the engine went away). When the command never started,
        // or the agent made no model call, nothing of it was recorded: a retry repeats nothing.
        if (err instanceof CommandNotStartedError || (secret && (await callsRecorded()) === 0)) agentStarted = false;
        throw err;
      });
    phases.agent = Date.now() - agentStartedAt;
    if (secret) deps.sessions.close(secret);
    const oomKilled = (await box.oomKills()) > oomBefore;
    if (agentRes.timedOut) agentError = new RolloutError('agent_timeout', `the harness ran past the agent timeout of ${agentSec} s and was killed`);
    else if (oomKilled) agentError = new RolloutError('oom_killed', `a process was killed for exceeding the container's memory limit (harness exit ${agentRes.exitCode})`);
    else if (agentRes.exitCode !== 0) agentError = new RolloutError('harness_crash', `the harness exited with code ${agentRes.exitCode}`);
    await log('agent', `exit ${agentRes.exitCode} after ${phases.agent} ms${agentError ? ` (${agentError.type})` : ''}`);

    // ── verify ── (stale reward files from the agent are removed first: only the grader may write them)
    throwIfAborted(deps.signal);
    const verifyStarted = Date.now();
    const verifyRes = await gradeAndCollect(box, verifierSec);
    phases.verify = Date.now() - verifyStarted - (phases.collect ?? 0);
    const { json, txt } = (logsCollected ? rewardFilesIn(path.join(artifacts, 'verifier')) : undefined) ?? (await rewardFilesInside(box));
    try {
      if (verifyRes.timedOut) throw new RolloutError('verifier_failure', `the grader ran past its timeout of ${verifierSec} s`);
      reward = parseReward(txt ?? null, json ?? null);
    } catch (err) {
      const suffix = verifyRes.exitCode !== 0 ? ` (test.sh exited ${verifyRes.exitCode})` : '';
      throw err instanceof RolloutError ? new RolloutError(err.type, err.message + suffix) : err;
    }
  } catch (err) {
    if (secret) deps.sessions.close(secret);
    const failure = deps.signal.aborted ? new RolloutError('cancelled', 'the run was interrupted') : asRolloutError(err);
    await finish(failure);
    return { reward: null, errorType: failure.type, errorMessage: failure.message, beforeAgent: !agentStarted };
  } finally {
    if (sandbox) await collectAndRemove(sandbox);
  }
  await finish(agentError);
  return { reward: reward.value, errorType: agentError?.type ?? null, errorMessage: agentError?.message ?? null, beforeAgent: false };

  async function callsRecorded(): Promise<number> {
    await store.flush();
    return (await store.countCalls([slot.rolloutId])).get(slot.rolloutId) ?? 0;
  }

  /**
   * One exec empties /tests and /logs/verifier, puts the tests in, runs the grader and brings /logs out,
   * the grader's reward files with it; then the rest is collected.
   */
  async function gradeAndCollect(box: Sandbox, verifierSec: number): Promise<ExecResult> {
    const staging = mkdtempSync(path.join(artifacts, '.logs-'));
    try {
      const res = await box.exec(redirected(['bash', '/tests/test.sh'], '/logs/verifier/test-stdout.txt', '/logs/verifier/test-stderr.txt'), {
        timeoutSec: verifierSec,
        env: task.config.verifier.env,
        workdir: '/workspace',
        emptyFirst: ['/tests', '/logs/verifier'],
        filesIn: filesOf(task.testsDir, '/tests', taskLinks(task, task.testsDir)),
        copyOutAfter: { sandboxPath: '/logs', hostDir: staging },
      });
      logsCollected = await collect(box, res.copiedOut ? staging : undefined);
      return res;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** Copies the logs (unless `staged`: already out, in that folder) and transcripts out; false (and an event) when that failed. */
  async function collect(box: Sandbox, staged?: string): Promise<boolean> {
    try {
      await timed('collect', config.timeouts.collect_sec, 'infrastructure', async () => {
        if (staged) keepLogs(staged, artifacts);
        else await copyLogsOut(box, artifacts);
        for (const p of harness.transcriptPaths.filter((p) => !p.startsWith('/logs/'))) await box.copyOut(p, path.join(artifacts, 'agent', 'transcript'));
      });
      return true;
    } catch (err) {
      await log('collect', `collecting artifacts failed: ${errorMessage(err)}`);
      return false;
    }
  }

  async function collectAndRemove(box: Sandbox): Promise<void> {
    if (!logsCollected) await collect(box);
    if (deps.keepContainerSec) {
      await log('container', `kept container ${box.id.slice(0, 12)} for debugging: openforge shell ${slot.rolloutId}`);
      return;
    }
    await timed('teardown', config.timeouts.teardown_sec, 'infrastructure', () => box.remove()).catch((err) => log('teardown', errorMessage(err)));
  }

  async function finish(error: RolloutError | undefined): Promise<void> {
    const record = {
      task_id: task.id,
      sample_index: slot.sampleIndex,
      attempt: slot.attempt,
      rollout_id: slot.rolloutId,
      harness: harness.name,
      reward: reward?.value ?? null,
      reward_details: reward?.details ?? null,
      error_type: error?.type ?? null,
      error_message: error?.message ?? null,
      phases_ms: phases,
    };
    writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(record, null, 2));
    if (error) writeFileSync(path.join(artifacts, 'exception.txt'), `${error.type}: ${error.message}\n`);
    // whoever sees the rollout ended (the rollout service's samples, a resumed run) sees all its calls
    await store.flush();
    await store.updateRollout(slot.rolloutId, {
      status: reward ? 'finished' : 'error',
      reward: reward?.value ?? null,
      rewardDetails: reward?.details ?? null,
      errorType: error?.type ?? null,
      errorMessage: error?.message ?? null,
      finishedAt: Date.now(),
      phases,
    });
  }
}

/**
 * Output goes to files inside the sandbox rather than the exec stream: a background process the agent
 * left behind may hold its stdout open forever, which would keep the exec from ending.
 */
/** A folder of the task (tests/, solution/) may link to its suite's shared files; other folders keep links skipped. */
function taskLinks(task: Task, hostDir: string): { symlinksWithin?: string } {
  const suite = suiteDirOf(task);
  const rel = path.relative(suite, path.resolve(hostDir));
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? { symlinksWithin: suite } : {};
}

function redirected(command: string[], stdout: string, stderr: string): string[] {
  return ['sh', '-c', `mkdir -p ${path.posix.dirname(stdout)} && exec "$@" >${stdout} 2>${stderr} </dev/null`, 'sh', ...command];
}

function asRolloutError(err: unknown): RolloutError {
  if (err instanceof RolloutError) return err;
  return new RolloutError('infrastructure', errorMessage(err));
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new RolloutError('cancelled', 'the run was interrupted');
}

/**
 * /logs/agent and /logs/verifier into `artifacts/agent` and `artifacts/verifier`, in one copy: each copy
 * out costs the engine ~150 ms of CPU whatever its size. What else the container left in /logs stays behind.
 */
async function copyLogsOut(box: Sandbox, artifacts: string): Promise<void> {
  const staging = mkdtempSync(path.join(artifacts, '.logs-'));
  try {
    if (await box.copyOut('/logs', staging)) keepLogs(staging, artifacts);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Moves `staging/logs/agent` and `staging/logs/verifier` to the rollout's artifacts. */
function keepLogs(staging: string, artifacts: string): void {
  for (const part of ['agent', 'verifier']) {
    const from = path.join(staging, 'logs', part);
    if (existsSync(from)) renameSync(from, path.join(artifacts, part));
  }
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

/** The grader's reward files read inside the sandbox: when collecting failed, or found none (e.g. symlinks, which it skips). */
async function rewardFilesInside(box: Sandbox): Promise<{ json: string | null; txt: string | null }> {
  const out = await box.exec(['sh', '-c', 'cat /logs/verifier/reward.json 2>/dev/null; printf "\\0"; cat /logs/verifier/reward.txt 2>/dev/null']);
  const [json, txt] = out.stdout.split('\0');
  return { json: json ?? null, txt: txt ?? null };
}
