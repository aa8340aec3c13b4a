import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, rmSync, writeFileSync } from 'node:fs';
import type { ActionError, ActionSchemaName, CanonicalAction, StepOptions } from '../browser-env/actions.js';
import { ActionInputError, translate } from '../browser-env/translators/index.js';
import { A11yWatcher, a11yTree } from './a11y.js';
import type { DesktopObservation, DesktopReset } from './actions.js';
import { UnknownKeyError } from './keysyms.js';
import { a11yMarks, drawMarks, type Mark } from './marks.js';
import { DEFAULT_SETTLE, Settler, type SettlePolicy } from './settle.js';
import { encodePng, type XDisplay } from './x-display.js';
import { KeycodeBinder, keysymName, onKeymap, typingSegments } from './unicode-keys.js';
import { DesktopActionError, keyNamesArgs, runXdotool, typeArgs, xdotoolArgs } from './xdotool.js';

const MAX_WAIT_MS = 60_000;
/** How often a wait for an element reads the accessibility tree again. */
const WAIT_POLL_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks `found` every `everyMs` until it says yes or `ms` have passed; whether it did. */
async function pollUntil(ms: number, everyMs: number, found: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await found()) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(everyMs, left));
  }
}

export interface DesktopEnvOptions {
  actionTimeoutMs: number;
  captureDeadlineMs: number;
  a11yTimeoutMs: number;
  settle: SettlePolicy;
  /** Where launched apps' output goes. */
  logDir: string;
}

export const DEFAULT_DESKTOP_OPTIONS: DesktopEnvOptions = {
  actionTimeoutMs: 10_000,
  captureDeadlineMs: 10_000,
  a11yTimeoutMs: 20_000,
  settle: DEFAULT_SETTLE,
  logDir: '/logs/services',
};

/** The episode's end (done or fail), for graders. */
export const FINISHED_FILE = '/tmp/openforge-finished.json';

/** Settling after apps were launched at reset: a second without painting, at most 30 s. */
const LAUNCH_SETTLE: SettlePolicy = { quietMs: 1000, firstDamageMs: 2000, capMs: 30_000 };

export interface DesktopStepOptions extends StepOptions {
  /** Include the accessibility tree (AT-SPI) in the observation. */
  a11y_tree?: boolean;
  /** Number the elements a pointer acts on (AT-SPI) and draw their boxes and numbers on the screenshot. */
  set_of_marks?: boolean;
}

/**
 * The desktop behind the HTTP API and the MCP tools: episodes (the task's apps launched afresh), steps in
 * any action vocabulary run through xdotool on the X display, settled by X damage and AT-SPI events, observed as an X
 * screenshot (and the AT-SPI tree when asked). Calls are serialised: one display, one agent at a time.
 */
export class DesktopEnv {
  private apps: ChildProcess[] = [];
  /** Apps that died on their own since the last step: reported once, as that step's error. */
  private exited: string[] = [];
  private mouse = { x: 0, y: 0 };
  private finishedState: DesktopObservation['finished'];
  private queue: Promise<unknown> = Promise.resolve();
  private readonly binder: KeycodeBinder;
  private readonly a11yEvents = new A11yWatcher();
  /** Settled when the screen is undamaged and the accessibility tree quiet. */
  private readonly settler: Settler;

  constructor(
    readonly display: XDisplay,
    private readonly options: DesktopEnvOptions = DEFAULT_DESKTOP_OPTIONS,
  ) {
    this.binder = new KeycodeBinder(display);
    this.settler = new Settler([display.damage, this.a11yEvents]);
  }

  get screen(): { width: number; height: number } {
    return { width: this.display.width, height: this.display.height };
  }

  reset(req: DesktopReset): Promise<DesktopObservation> {
    return this.serial(async () => {
      const started = performance.now();
      this.stopApps();
      this.finishedState = undefined;
      rmSync(FINISHED_FILE, { force: true });
      this.exited = [];
      this.a11yEvents.ensure();
      let error: ActionError | null = null;
      const mark = this.settler.mark();
      for (const command of req.launch ?? []) this.launch(command);
      if (req.wait_for_window) {
        const found = await this.waitForWindow(req.wait_for_window, req.timeout_ms ?? 60_000);
        if (!found) error = { code: 'window_not_shown', message: `no window titled "…${req.wait_for_window}…" appeared within ${req.timeout_ms ?? 60_000} ms` };
      }
      const action_ms = performance.now() - started;
      // An app that is starting paints in bursts (splash, window, document loading): wait for a longer quiet.
      const settle_ms = await this.settler.settle(mark, req.launch?.length ? LAUNCH_SETTLE : { ...this.options.settle, firstDamageMs: 0 });
      return this.observe({}, error, { action_ms, settle_ms });
    });
  }

  /** One action or a list, in the vocabulary `schema`; stops at the first failing action and reports it. */
  step(schema: ActionSchemaName, actions: unknown[], options: DesktopStepOptions = {}): Promise<DesktopObservation> {
    return this.serial(async () => {
      const started = performance.now();
      this.a11yEvents.ensure();
      const mark = this.settler.mark();
      let error: ActionError | null = null;
      let ran = 0;
      outer: for (const raw of actions) {
        let canonical: CanonicalAction[];
        try {
          canonical = translate(schema, raw, { viewport: this.screen, screenshotSize: options.screenshot_size, mouse: { ...this.mouse } });
        } catch (err) {
          if (!(err instanceof ActionInputError)) throw err;
          error = { code: err.code, message: err.message };
          break;
        }
        for (const action of canonical) {
          if (ran++ > 0) await this.settler.settle(this.settler.mark(), { ...this.options.settle, firstDamageMs: 30 });
          error = await this.run(action);
          if (error) break outer;
        }
      }
      const action_ms = performance.now() - started;
      const settle_ms = await this.settler.settle(mark, this.options.settle);
      return this.observe(options, error ?? this.appExitError(), { action_ms, settle_ms });
    });
  }

  observation(options: DesktopStepOptions = {}): Promise<DesktopObservation> {
    return this.serial(() => this.observe(options, null, { action_ms: 0, settle_ms: 0 }));
  }

  get finished(): DesktopObservation['finished'] {
    return this.finishedState;
  }

  private async run(action: CanonicalAction): Promise<ActionError | null> {
    try {
      if (action.type === 'done' || action.type === 'fail') {
        this.finishedState =
          action.type === 'done'
            ? { status: 'done', ...(action.answer !== undefined ? { answer: action.answer } : {}) }
            : { status: 'fail', ...(action.reason !== undefined ? { reason: action.reason } : {}) };
        // OSWorld's `infeasible` grading asks whether the episode ended in FAIL (images/desktop/python/osworld_eval).
        writeFileSync(FINISHED_FILE, JSON.stringify(this.finishedState));
        return null;
      }
      if (action.type === 'wait') {
        const ms = Math.min(action.ms, MAX_WAIT_MS);
        if (action.until !== undefined) return await this.waitForElement(action.until, ms);
        await sleep(ms);
        return null;
      }
      if (action.type === 'type' && [...action.text].some((c) => !onKeymap(c.codePointAt(0)!))) {
        await this.typeBeyondKeymap(action.text);
        return null;
      }
      const args = xdotoolArgs(action, this.screen);
      if (args) await runXdotool(args, this.options.actionTimeoutMs);
      if ('x' in action && typeof action.x === 'number' && typeof action.y === 'number') this.mouse = { x: action.x, y: action.y };
      if (action.type === 'drag') this.mouse = { ...action.path[action.path.length - 1]! };
      return null;
    } catch (err) {
      if (err instanceof DesktopActionError) return { code: err.code, message: err.message };
      if (err instanceof UnknownKeyError) return { code: 'unknown_key', message: err.message };
      throw err;
    }
  }

  /**
   * Polls until `text` is on the screen, at most `ms`: a window whose title contains it (any app), or a set-of-marks
   * candidate whose accessible name does (apps on the AT-SPI bus). Case-insensitive.
   */
  private async waitForElement(text: string, ms: number): Promise<ActionError | null> {
    const deadline = performance.now() + ms;
    const wanted = text.toLowerCase();
    const has = (name: string) => name.toLowerCase().includes(wanted);
    let failedRead: Error | undefined;
    const shown = await pollUntil(ms, WAIT_POLL_MS, async () => {
      const windows = await this.display.windows().catch(() => []);
      if (windows.some((w) => has(w.title))) return true;
      const timeout = Math.max(100, Math.min(this.options.a11yTimeoutMs, deadline - performance.now()));
      const marks = await a11yMarks(this.screen, timeout).catch((err: Error) => err);
      failedRead = marks instanceof Error ? marks : undefined;
      return !(marks instanceof Error) && marks.some((m) => has(m.name));
    });
    if (shown) return null;
    const why = failedRead ? ` (the last read of the accessibility tree failed: ${failedRead.message})` : '';
    return { code: 'wait_timeout', message: `no window or element named like "${text}" was on the screen within ${ms} ms${why}` };
  }

  /** Printable ASCII through `xdotool type` as usual; newline and tab as keys; other characters through keycodes bound to them first. */
  private async typeBeyondKeymap(text: string): Promise<void> {
    const slots = await this.binder.slots().catch((err: Error) => {
      throw new DesktopActionError('action_failed', `reading the X keymap failed: ${err.message}`);
    });
    let segments;
    try {
      segments = typingSegments(text, slots);
    } catch (err) {
      throw new DesktopActionError('action_failed', (err as Error).message);
    }
    for (const segment of segments) {
      if (segment.kind === 'keymap') {
        await runXdotool(typeArgs(segment.text), this.options.actionTimeoutMs);
        continue;
      }
      if (segment.kind === 'keys') {
        await runXdotool(keyNamesArgs(segment.names), this.options.actionTimeoutMs);
        continue;
      }
      await this.binder.ensure(segment.codePoints).catch((err: Error) => {
        throw new DesktopActionError('action_failed', `binding keycodes for ${String.fromCodePoint(...new Set(segment.codePoints))} failed: ${err.message}`);
      });
      await runXdotool(keyNamesArgs(segment.codePoints.map(keysymName)), this.options.actionTimeoutMs);
    }
  }

  private async observe(
    options: DesktopStepOptions,
    error: ActionError | null,
    timings: { action_ms: number; settle_ms: number },
  ): Promise<DesktopObservation> {
    const started = performance.now();
    const [raw, windows, marks] = await Promise.all([
      options.screenshot === false ? undefined : this.display.raw(this.options.captureDeadlineMs),
      this.display.windows().catch(() => []),
      options.set_of_marks
        ? a11yMarks(this.screen, this.options.a11yTimeoutMs).catch((err: Error) => {
            error ??= { code: 'a11y_failed', message: err.message };
            return undefined;
          })
        : undefined,
    ]);
    if (raw && marks) drawMarks(raw, this.screen.width, this.screen.height, marks);
    const png = raw ? encodePng(raw, this.screen.width, this.screen.height) : undefined;
    let tree: string | undefined;
    if (options.a11y_tree || options.aria) {
      tree = await a11yTree(this.options.a11yTimeoutMs).catch((err: Error) => {
        error ??= { code: 'a11y_failed', message: err.message };
        return undefined;
      });
    }
    const capture_ms = performance.now() - started;
    return {
      screenshot: { data: png ? png.toString('base64') : '', mime: 'image/png', width: this.screen.width, height: this.screen.height },
      viewport: this.screen,
      device_pixel_ratio: 1,
      scale: 1,
      url: '',
      title: windows.find((w) => w.active)?.title ?? '',
      tabs: [],
      windows,
      ...(tree !== undefined ? { a11y_tree: tree } : {}),
      ...(marks ? { marks: marks satisfies Mark[] } : {}),
      last_action_error: error,
      timings: { ...timings, capture_ms },
      ...(this.finishedState ? { finished: this.finishedState } : {}),
    };
  }

  /** Starts one app command detached (its own process group), on the display and D-Bus the env server has. */
  private launch(command: string): void {
    const log = openSync(`${this.options.logDir}/apps.log`, 'a');
    const child = spawn('bash', ['-c', command], { detached: true, stdio: ['ignore', log, log], env: process.env });
    this.apps.push(child);
    child.on('exit', (code, signal) => {
      if (!this.apps.includes(child)) return; // stopped by a reset
      this.apps = this.apps.filter((c) => c !== child);
      if (signal || (code !== null && code !== 0)) this.exited.push(`"${command}" ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`);
    });
  }

  private appExitError(): ActionError | null {
    if (this.exited.length === 0) return null;
    const message = `an application stopped: ${this.exited.join('; ')}; the episode goes on without it`;
    this.exited = [];
    return { code: 'app_exited', message };
  }

  private stopApps(): void {
    const apps = this.apps;
    this.apps = [];
    for (const app of apps) {
      try {
        if (app.pid) process.kill(-app.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private waitForWindow(text: string, timeoutMs: number): Promise<boolean> {
    return pollUntil(timeoutMs, 100, async () => (await this.display.windows().catch(() => [])).some((w) => w.title.includes(text)));
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  close(): void {
    this.stopApps();
    this.a11yEvents.close();
    this.display.close();
  }
}
