import type { Store } from '../store/store.js';
import type { ProxySession } from '../proxy/session.js';
import type { RecordedCall } from '../records/call.js';
import { errorMessage } from '../util/errors.js';
import type { CallSink, ProxyLogger, RolloutGrades } from '../proxy/types.js';

/** What a standalone proxy's run holds when it stops. */
export interface StandaloneRunSummary {
  rollouts: number;
  calls: number;
  /** Rollouts with a reward. */
  graded: number;
  /**
   * Rollouts of earlier runs in the same store (a restarted proxy, a reused open token) that got
   * calls from this one: they stay in their runs, which `openforge export --run <id>` writes.
   */
  earlierRuns: { runId: string; rollouts: number }[];
}

/** What became of a rollout's row the first time this run recorded a call of it. */
type Registration = 'added' | 'earlier' | 'unstored';

/** The harness of a standalone proxy's rollouts: whatever client called it. */
export const EXTERNAL_HARNESS = 'external';

/**
 * What `openforge proxy` stores besides its calls, so that `openforge export` and `stats` read its
 * store as a run: a run row while it serves, and a rollout row for each rollout the first time one of
 * its calls is recorded (its task: the one its session was created for, else the one its first call
 * was served for, if any). Rewards come from whoever grades the rollouts
 * (`POST /control/rollouts/<id>/reward`). A rollout id already in the store (a restarted proxy on the
 * same file, a client reusing an open token) stays in the run it started in, and its new calls with it.
 */
export class StandaloneRun implements CallSink, RolloutGrades {
  /** Rollouts whose row is written or being written, and whether this run added it. */
  private readonly registrations = new Map<string, Promise<Registration>>();
  /** Settled registrations: a call of theirs is recorded without waiting for anything. */
  private readonly registered = new Set<string>();
  private readonly taskOfSession = new Map<string, string>();
  private readonly samplesPerTask = new Map<string, number>();

  private constructor(
    private readonly store: Store,
    readonly runId: string,
    private readonly logger: ProxyLogger | undefined,
  ) {}

  /** Records the run as running; `upstream` goes into its config (a `sim:` one marks the run simulated). */
  static async start(store: Store, runId: string, upstream: string, logger?: ProxyLogger): Promise<StandaloneRun> {
    await store.createRun(runId, { source: 'openforge proxy', config: { model: { upstream }, harness: EXTERNAL_HARNESS } });
    return new StandaloneRun(store, runId, logger);
  }

  /** A session created through the control API: its rollout's task is the session's. */
  sessionCreated(session: ProxySession): void {
    this.taskOfSession.set(session.rolloutId, session.taskId);
  }

  get policyCallsWithoutTokenIds(): number {
    return this.store.policyCallsWithoutTokenIds;
  }

  record(call: RecordedCall): Promise<void> {
    if (this.registered.has(call.rolloutId)) return this.store.record(call);
    // the call is recorded even if its rollout's row could not be written
    return this.registration(call.rolloutId, call.taskId).then(() => this.store.record(call));
  }

  flush(): Promise<void> {
    return this.store.flush();
  }

  async setReward(rolloutId: string, reward: number, details: unknown): Promise<boolean> {
    if (!this.registrations.has(rolloutId) && !this.taskOfSession.has(rolloutId)) return false;
    await this.registration(rolloutId);
    await this.store.updateRollout(rolloutId, { reward, rewardDetails: details ?? null });
    return true;
  }

  /** Marks this run's rollouts and the run finished, once no call is in flight any more; what it holds. */
  async finish(): Promise<StandaloneRunSummary> {
    const finishedAt = Date.now();
    const earlier = new Map<string, number>();
    for (const [rolloutId, registration] of this.registrations) {
      const outcome = await registration;
      if (outcome === 'added') await this.store.updateRollout(rolloutId, { status: 'finished', finishedAt });
      if (outcome !== 'earlier') continue;
      const runId = (await this.store.getRollout(rolloutId))?.runId;
      if (runId && runId !== this.runId) earlier.set(runId, (earlier.get(runId) ?? 0) + 1);
    }
    await this.store.setRunStatus(this.runId, 'finished');
    const rollouts = await this.store.currentRollouts(this.runId);
    const calls = await this.store.countCalls(rollouts.map((r) => r.id));
    return {
      rollouts: rollouts.length,
      calls: [...calls.values()].reduce((sum, n) => sum + n, 0),
      graded: rollouts.filter((r) => r.reward !== null).length,
      earlierRuns: [...earlier].map(([runId, count]) => ({ runId, rollouts: count })),
    };
  }

  private registration(rolloutId: string, calledFor?: string): Promise<Registration> {
    let registration = this.registrations.get(rolloutId);
    if (!registration) {
      registration = this.register(rolloutId, calledFor);
      this.registrations.set(rolloutId, registration);
    }
    return registration;
  }

  /** `calledFor`: the task the rollout's first call was served for (an open token's client may name one). */
  private async register(rolloutId: string, calledFor: string | undefined): Promise<Registration> {
    const taskId = this.taskOfSession.get(rolloutId) ?? calledFor ?? '';
    const sampleIndex = this.samplesPerTask.get(taskId) ?? 0;
    this.samplesPerTask.set(taskId, sampleIndex + 1);
    try {
      const added = await this.store.addRollout(
        { id: rolloutId, runId: this.runId, taskId, sampleIndex, attempt: 0, harness: EXTERNAL_HARNESS },
        { ifAbsent: true },
      );
      if (!added) return 'earlier';
      await this.store.updateRollout(rolloutId, { status: 'running', startedAt: Date.now() });
      return 'added';
    } catch (err) {
      this.logger?.error(`rollout ${rolloutId}: its row could not be stored (its calls are): ${errorMessage(err)}`);
      return 'unstored';
    } finally {
      this.registered.add(rolloutId);
    }
  }
}
