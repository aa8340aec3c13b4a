import {
  type ActionError,
  type ActionSchemaName,
  type CanonicalAction,
  type Observation,
  type ResetRequest,
  type StepOptions,
  type Viewport,
} from '../actions.js';
import { ActionInputError, translate } from '../translators/index.js';
import type { BrowserHost } from './browser-host.js';
import { Episode, StepError, firstLine } from './episode.js';
import { DEFAULT_SETTLE, type SettlePolicy } from './settle.js';

export interface BrowserEnvOptions {
  defaultViewport: Viewport;
  actionTimeoutMs: number;
  captureDeadlineMs: number;
  settle: SettlePolicy;
}

export const DEFAULT_ENV_OPTIONS: BrowserEnvOptions = {
  defaultViewport: { width: 1280, height: 800 },
  actionTimeoutMs: 5000,
  captureDeadlineMs: 10_000,
  settle: DEFAULT_SETTLE,
};

/**
 * The browser environment behind the HTTP API and the MCP tools: episodes (a fresh context each), steps in
 * any action vocabulary, observations. Calls are serialised: one browser, one agent at a time.
 */
export class BrowserEnv {
  private episode?: Episode;
  private last?: ResetRequest;
  /** The URL of the latest observation, where a crash recovery reopens the episode. */
  private lastUrl?: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly host: BrowserHost,
    private readonly options: BrowserEnvOptions = DEFAULT_ENV_OPTIONS,
  ) {}

  reset(req: ResetRequest): Promise<Observation> {
    return this.serial(async () => {
      this.last = req;
      await this.episode?.close();
      this.episode = undefined;
      this.host.takeCrashNotice(); // a fresh episode starts clean
      let error: ActionError | null = null;
      const started = performance.now();
      const ep = await this.open(req).catch(async (err) => {
        if (!(err instanceof StepError)) throw err;
        error = { code: err.code, message: err.message };
        return this.episode!;
      });
      const action_ms = performance.now() - started;
      const settle_ms = await ep.settle();
      return ep.observe({}, error, { action_ms, settle_ms });
    });
  }

  /** One action or a list, in the vocabulary `schema`; stops at the first failing action and reports it. */
  step(schema: ActionSchemaName, actions: unknown[], options: StepOptions = {}): Promise<Observation> {
    return this.serial(async () => {
      let error: ActionError | null = null;
      const ep = await this.current();
      if (this.host.takeCrashNotice() || !ep.alive()) return this.afterCrash(options, 'the actions were not run');
      const started = performance.now();
      ep.beginStep();
      const progress = { ran: 0 };
      for (const raw of actions) {
        let canonical: CanonicalAction[];
        try {
          canonical = translate(schema, raw, { viewport: ep.settings.viewport, screenshotSize: options.screenshot_size, mouse: { ...ep.mouse } });
        } catch (err) {
          if (!(err instanceof ActionInputError)) throw err;
          error = { code: err.code, message: err.message };
          break;
        }
        error = await this.runAll(ep, canonical, progress);
        if (error) break;
      }
      if (error?.code === 'browser_crashed' || !ep.alive()) return this.afterCrash(options, `the step stopped: ${error?.message ?? 'the browser died'}`);
      const action_ms = performance.now() - started;
      try {
        const wantAria = options.aria ?? schema === 'element';
        return await ep.settleAndObserve({ ...options, aria: wantAria }, error, action_ms);
      } catch (err) {
        if (!ep.alive()) return this.afterCrash(options, `the step's observation failed: ${firstLine(err)}`);
        throw err;
      }
    });
  }

  /** The browser died: relaunch it, reopen the episode where the agent was, and say so. */
  private async afterCrash(options: StepOptions, what: string): Promise<Observation> {
    const recovered = await this.recover();
    const error = {
      code: 'browser_restarted',
      message: `the browser crashed and was restarted (restart ${this.host.restarts}); ${what}; the episode reopened ${recovered.page().url()} in a fresh context`,
    };
    const settle_ms = await recovered.settle();
    return recovered.observe(options, error, { action_ms: 0, settle_ms });
  }

  observation(options: StepOptions = {}): Promise<Observation> {
    return this.serial(async () => (await this.current()).observe(options, null, { action_ms: 0, settle_ms: 0 }));
  }

  get finished(): Observation['finished'] {
    return this.episode?.finished;
  }

  /**
   * Runs canonical actions in order. Between two actions of one step the page is settled, so an action
   * after a click that navigates (or opens a tab, or starts a fetch) reaches the new state, not the old page.
   */
  private async runAll(ep: Episode, actions: CanonicalAction[], progress: { ran: number }): Promise<ActionError | null> {
    for (const action of actions) {
      try {
        if (progress.ran++ > 0) await ep.settle();
        await ep.run(action);
      } catch (err) {
        if (err instanceof StepError) return { code: err.code, message: err.message };
        const message = firstLine(err);
        if (!ep.context.browser()?.isConnected() || /Target .*closed|browser has been closed/i.test(message)) {
          return { code: 'browser_crashed', message: `the browser died during ${action.type}: ${message}; the next step restarts it` };
        }
        return { code: /Timeout/i.test(message) ? 'timeout' : 'action_failed', message: `${action.type} failed: ${message}` };
      }
    }
    return null;
  }

  /** The current episode, opening a blank one when none was reset yet. */
  private async current(): Promise<Episode> {
    if (!this.episode) await this.open(this.last ?? {});
    return this.episode!;
  }

  private async open(req: ResetRequest): Promise<Episode> {
    const browser = await this.host.get();
    const viewport = req.viewport ?? this.options.defaultViewport;
    const dpr = req.device_scale_factor ?? 1;
    const context = await browser.newContext({ viewport, deviceScaleFactor: dpr, ignoreHTTPSErrors: true, acceptDownloads: false });
    const settings = {
      viewport,
      dpr,
      actionTimeoutMs: this.options.actionTimeoutMs,
      captureDeadlineMs: this.options.captureDeadlineMs,
      settle: this.options.settle,
    };
    // The episode exists (with its tab) even when the start URL fails, so the agent sees the error page.
    let startError: StepError | undefined;
    this.episode = await Episode.open(context, settings).catch(async (err) => {
      await context.close().catch(() => undefined);
      throw err;
    });
    if (req.start_url)
      await this.episode
        .run({ type: 'goto', url: req.start_url })
        .catch((err) => (startError = err instanceof StepError ? err : new StepError('navigation_failed', firstLine(err))));
    if (startError) throw startError;
    return this.episode;
  }

  /** After a crash: a new context in the relaunched browser, back at the URL the agent was on. */
  private async recover(): Promise<Episode> {
    const url = this.lastUrl;
    const old = this.episode;
    this.episode = undefined;
    await old?.close();
    await this.host.replaceIfDead(old?.context.browser() ?? undefined);
    this.host.takeCrashNotice(); // this recovery is the one the notice asked for
    const start = url && url !== 'about:blank' ? url : this.last?.start_url;
    try {
      return await this.open({ ...(this.last ?? {}), start_url: start });
    } catch (err) {
      if (err instanceof StepError && this.episode) return this.episode;
      throw err;
    }
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const tracked = async () => {
      const result = await task();
      const url = (result as { url?: unknown } | undefined)?.url;
      if (typeof url === 'string') this.lastUrl = url;
      return result;
    };
    const run = this.queue.then(tracked, tracked);
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.episode?.close();
    await this.host.close();
  }
}
