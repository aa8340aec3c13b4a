import type { BrowserContext, Page } from 'playwright-core';
import type { ActionError, CanonicalAction, Observation, StepOptions, Tab, Viewport } from '../actions.js';
import { type Capture, type CaptureRequest, capture, withTimeout } from './capture.js';
import { NetworkTracker, SETTLE_PROBE, type SettleMark, type SettlePolicy, settle, sleep, stableNow, unchangedSince } from './settle.js';

/** An action that failed in a way the agent can act on: reported as last_action_error, the episode goes on. */
export class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EpisodeSettings {
  viewport: Viewport;
  dpr: number;
  actionTimeoutMs: number;
  captureDeadlineMs: number;
  settle: SettlePolicy;
}

const MAX_WAIT_MS = 30_000;

/** A screenshot already under way, and when it started. */
interface PendingCapture {
  shot: Promise<Capture>;
  started: number;
}

/** One episode: a fresh browser context, its tabs, the mouse position, and whether the agent finished. */
export class Episode {
  private active = 0;
  readonly mouse = { x: 0, y: 0 };
  finished?: Observation['finished'];
  private zoom?: [number, number, number, number];
  private readonly networks = new WeakMap<Page, NetworkTracker>();

  private constructor(
    readonly context: BrowserContext,
    readonly settings: EpisodeSettings,
  ) {}

  static async open(context: BrowserContext, settings: EpisodeSettings, startUrl?: string): Promise<Episode> {
    const ep = new Episode(context, settings);
    context.setDefaultTimeout(settings.actionTimeoutMs);
    context.setDefaultNavigationTimeout(settings.actionTimeoutMs);
    await context.addInitScript(SETTLE_PROBE);
    // New tabs and pop-ups (target=_blank, window.open) become the active tab.
    context.on('page', (page) => {
      ep.track(page);
      ep.active = context.pages().indexOf(page);
    });
    const page = await context.newPage();
    ep.track(page);
    if (startUrl) await ep.navigate(page, startUrl);
    return ep;
  }

  private track(page: Page): void {
    if (this.networks.has(page)) return;
    this.networks.set(page, new NetworkTracker(page));
    page.on('close', () => {
      const pages = this.context.pages();
      this.active = Math.max(0, Math.min(this.active, pages.length - 1));
    });
  }

  /** False once the browser or this episode's context is gone (crash, killed renderer of the last tab). */
  alive(): boolean {
    return this.context.browser()?.isConnected() !== false && this.context.pages().length > 0;
  }

  page(): Page {
    const pages = this.context.pages();
    const page = pages[this.active] ?? pages[pages.length - 1];
    if (!page) throw new StepError('no_tab', 'the episode has no open tab');
    return page;
  }

  private async navigate(page: Page, url: string): Promise<void> {
    try {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
    } catch (err) {
      throw new StepError('navigation_failed', `cannot open ${url}: ${firstLine(err)}`);
    }
  }

  private inViewport(x: number, y: number): void {
    const { width, height } = this.settings.viewport;
    if (!(x >= 0 && y >= 0 && x < width && y < height)) {
      throw new StepError('out_of_range', `(${x}, ${y}) is outside the ${width}x${height} viewport; coordinates are CSS pixels from the top-left corner`);
    }
  }

  private ref(ref: string) {
    return this.page().locator(`aria-ref=${ref}`);
  }

  /** Runs one canonical action (throws StepError). */
  async run(action: CanonicalAction): Promise<void> {
    const page = this.page();
    const mouse = page.mouse;
    switch (action.type) {
      case 'click': {
        this.inViewport(action.x, action.y);
        const button = action.button ?? 'left';
        if (button === 'back') return void (await page.goBack({ waitUntil: 'domcontentloaded' }));
        if (button === 'forward') return void (await page.goForward({ waitUntil: 'domcontentloaded' }));
        for (const m of action.modifiers ?? []) await page.keyboard.down(m);
        await mouse.click(action.x, action.y, { button, clickCount: action.count ?? 1 });
        for (const m of [...(action.modifiers ?? [])].reverse()) await page.keyboard.up(m);
        return this.moved(action.x, action.y);
      }
      case 'move':
        this.inViewport(action.x, action.y);
        await mouse.move(action.x, action.y);
        return this.moved(action.x, action.y);
      case 'mouse_down':
        return mouse.down({ button: toMouseButton(action.button) });
      case 'mouse_up':
        return mouse.up({ button: toMouseButton(action.button) });
      case 'drag': {
        for (const p of action.path) this.inViewport(p.x, p.y);
        const [first, ...rest] = action.path;
        await mouse.move(first!.x, first!.y);
        await mouse.down();
        for (const p of rest) await mouse.move(p.x, p.y, { steps: 5 });
        await mouse.up();
        const last = action.path[action.path.length - 1]!;
        return this.moved(last.x, last.y);
      }
      case 'scroll': {
        const x = action.x ?? (this.mouse.x || this.settings.viewport.width / 2);
        const y = action.y ?? (this.mouse.y || this.settings.viewport.height / 2);
        this.inViewport(x, y);
        await mouse.move(x, y);
        this.moved(x, y);
        return mouse.wheel(action.dx, action.dy);
      }
      case 'type':
        return page.keyboard.type(action.text);
      case 'key': {
        const modifiers = action.keys.slice(0, -1);
        for (const k of modifiers) await page.keyboard.down(k);
        try {
          await page.keyboard.press(action.keys[action.keys.length - 1]!);
        } finally {
          for (const k of modifiers.reverse()) await page.keyboard.up(k);
        }
        return;
      }
      case 'key_down':
        return page.keyboard.down(action.key);
      case 'key_up':
        return page.keyboard.up(action.key);
      case 'wait':
        return action.until === undefined ? sleep(Math.min(action.ms, MAX_WAIT_MS)) : this.waitForText(page, action.until, Math.min(action.ms, MAX_WAIT_MS));
      case 'screenshot':
        return;
      case 'zoom': {
        const [x0, y0, x1, y1] = action.region;
        this.inViewport(x0, y0);
        this.inViewport(Math.max(x0, x1 - 1), Math.max(y0, y1 - 1));
        if (x1 <= x0 || y1 <= y0) throw new StepError('bad_action', 'zoom region must be [x0, y0, x1, y1] with x1 > x0 and y1 > y0');
        this.zoom = action.region;
        return;
      }
      case 'click_ref':
        return this.onRef(action.ref, (l) => l.click());
      case 'fill_ref':
        return this.onRef(action.ref, (l) => l.fill(action.text));
      case 'select_ref':
        return this.onRef(action.ref, async (l) => void (await l.selectOption(action.values)));
      case 'hover_ref':
        return this.onRef(action.ref, (l) => l.hover());
      case 'goto':
        return this.navigate(page, action.url);
      case 'go_back':
        return void (await page.goBack({ waitUntil: 'domcontentloaded' }));
      case 'go_forward':
        return void (await page.goForward({ waitUntil: 'domcontentloaded' }));
      case 'new_tab': {
        const tab = await this.context.newPage();
        this.active = this.context.pages().indexOf(tab);
        if (action.url) await this.navigate(tab, action.url);
        return;
      }
      case 'switch_tab': {
        const pages = this.context.pages();
        if (action.index >= pages.length) throw new StepError('no_tab', `there is no tab ${action.index}; open tabs are 0..${pages.length - 1}`);
        this.active = action.index;
        return void (await pages[action.index]!.bringToFront());
      }
      case 'close_tab': {
        const pages = this.context.pages();
        const index = action.index ?? this.active;
        if (index >= pages.length) throw new StepError('no_tab', `there is no tab ${index}; open tabs are 0..${pages.length - 1}`);
        if (pages.length === 1) await this.context.newPage(); // the episode keeps one tab
        await pages[index]!.close();
        this.active = Math.max(0, Math.min(index <= this.active ? this.active - 1 : this.active, this.context.pages().length - 1));
        return;
      }
      case 'done':
        this.finished = { status: 'done', ...(action.answer !== undefined ? { answer: action.answer } : {}) };
        return;
      case 'fail':
        this.finished = { status: 'fail', ...(action.reason !== undefined ? { reason: action.reason } : {}) };
        return;
    }
  }

  private moved(x: number, y: number): void {
    this.mouse.x = x;
    this.mouse.y = y;
  }

  private async waitForText(page: Page, text: string, ms: number): Promise<void> {
    const shown = page.getByText(text).or(page.getByLabel(text)).first();
    await shown.waitFor({ state: 'visible', timeout: Math.max(1, ms) }).catch(() => {
      throw new StepError('wait_timeout', `no text or label containing "${text}" was shown within ${ms} ms`);
    });
  }

  private async onRef(ref: string, act: (l: ReturnType<Episode['ref']>) => Promise<void>): Promise<void> {
    const locator = this.ref(ref);
    let count: number;
    try {
      count = await locator.count();
    } catch (err) {
      throw new StepError(
        'missing_ref',
        `ref "${ref}" is not in the latest aria snapshot (${firstLine(err)}); take a new observation with options.aria and use a ref from it`,
      );
    }
    if (count === 0)
      throw new StepError('missing_ref', `ref "${ref}" is not in the latest aria snapshot; take a new observation with options.aria and use a ref from it`);
    await act(locator);
  }

  /** Call before a step's actions, so settle() can tell which tabs and requests the step started. */
  beginStep(): void {
    this.pagesAtStep = new Set(this.context.pages());
    this.stepStarted = performance.now();
  }
  private pagesAtStep = new Set<Page>();
  private stepStarted = performance.now();
  /** The stable state the latest settle() found, which observe() checks its screenshot against. */
  private settled?: { page: Page; mark: SettleMark; deadline: number };

  /**
   * Settles the active tab; when the step opened a tab (pop-up, target=_blank), follows it and settles that.
   * Also run between the actions of one step, so an action after a navigation reaches the new page.
   */
  async settle(popupSeen = false): Promise<number> {
    const started = performance.now();
    const deadline = started + this.settings.settle.capMs;
    const first = this.page();
    this.settled = undefined;
    let result = await settle(first, this.networkOf(first), this.settings.settle, this.stepStarted, deadline);
    const opened = () => this.context.pages().filter((p) => !this.pagesAtStep.has(p));
    if ((result.popup || popupSeen) && opened().length === 0) {
      await this.context.waitForEvent('page', { timeout: Math.max(1, deadline - performance.now()) }).catch(() => undefined);
    }
    const page = this.page();
    if (page !== first && opened().includes(page)) {
      // A new tab starts at about:blank; wait for its first document before settling it.
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, deadline - performance.now()) }).catch(() => undefined);
      result = await settle(page, this.networkOf(page), this.settings.settle, this.stepStarted, deadline);
    }
    if (result.mark) this.settled = { page, mark: result.mark, deadline };
    this.pagesAtStep = new Set(this.context.pages());
    return performance.now() - started;
  }

  /**
   * The screenshot is taken as soon as nothing is pending, while the page's last DOM changes may still be
   * within a frame or two; it is kept only when the page provably did not change while it was taken
   * (same document, same mutation count, no work finished meanwhile), else the page is settled again and
   * captured again — at most maxCaptures times, within the settle cap. Returns the extra settle time.
   */
  private async captureStable(
    page: Page,
    shoot: () => Promise<Capture>,
    first?: PendingCapture,
  ): Promise<{ shot: Capture; resettle_ms: number; title?: string }> {
    const policy = this.settings.settle;
    let resettle_ms = 0;
    for (let n = 1; ; n++) {
      const settled = this.settled;
      const started = n === 1 && first ? first.started : performance.now();
      const shot = await (n === 1 && first ? first.shot : shoot());
      if (!settled || settled.page !== page || n >= policy.maxCaptures || performance.now() >= settled.deadline) return { shot, resettle_ms };
      const checked = performance.now();
      const unchanged = await unchangedSince(page, this.networkOf(page), policy, settled.mark, this.stepStarted, checked - started);
      if (unchanged || page !== this.page()) return { shot, resettle_ms: resettle_ms + performance.now() - checked, title: unchanged?.title };
      const again = await settle(page, this.networkOf(page), policy, this.stepStarted, settled.deadline);
      this.settled = again.mark ? { page, mark: again.mark, deadline: settled.deadline } : undefined;
      resettle_ms += performance.now() - checked;
    }
  }

  private networkOf(page: Page): NetworkTracker {
    let tracker = this.networks.get(page);
    if (!tracker) {
      tracker = new NetworkTracker(page);
      this.networks.set(page, tracker);
    }
    return tracker;
  }

  /** The open tabs; `activeTitle` is the active tab's title when the caller has just read it. */
  async tabs(activeTitle?: string): Promise<Tab[]> {
    return Promise.all(
      this.context.pages().map(async (p, index) => ({
        index,
        url: p.url(),
        title: index === this.active && activeTitle !== undefined ? activeTitle : await withTimeout(p.title(), 1000, 'title').catch(() => ''),
        active: index === this.active,
      })),
    );
  }

  /** Screenshot (CSS px, or the zoomed region), page state, and optionally the ARIA snapshot. */
  /**
   * Settles the page after a step and observes it. The screenshot starts together with the first stability
   * check: when the page is already stable (the usual case) that check costs no time; otherwise the
   * screenshot is dropped, the page settled, and captured again.
   */
  async settleAndObserve(options: StepOptions, error: ActionError | null, action_ms: number): Promise<Observation> {
    if (options.screenshot === false) return this.observe(options, error, { action_ms, settle_ms: await this.settle() });
    const started = performance.now();
    const page = this.page();
    const request = this.captureRequest(options);
    const shot = capture(page, request);
    shot.catch(() => undefined); // a dropped speculative screenshot may fail unobserved
    const quick = await stableNow(page, this.networkOf(page), this.settings.settle, this.stepStarted, started);
    if (quick.mark && page === this.page()) {
      this.settled = { page, mark: quick.mark, deadline: started + this.settings.settle.capMs };
      this.pagesAtStep = new Set(this.context.pages());
      return this.observe(options, error, { action_ms, settle_ms: 0 }, { shot, started });
    }
    const settle_ms = await this.settle(quick.popup);
    return this.observe(options, error, { action_ms, settle_ms });
  }

  private captureRequest(options: StepOptions): CaptureRequest {
    return {
      format: options.image_format ?? 'png',
      quality: options.jpeg_quality,
      viewport: this.settings.viewport,
      dpr: this.settings.dpr,
      region: this.zoom,
      deadlineMs: this.settings.captureDeadlineMs,
    };
  }

  async observe(
    options: StepOptions,
    error: ActionError | null,
    timings: { action_ms: number; settle_ms: number },
    pending?: PendingCapture,
  ): Promise<Observation> {
    const page = this.page();
    const started = pending?.started ?? performance.now();
    let shot: Capture = { data: '', mime: 'image/png', width: 0, height: 0, scale: 1 };
    let resettle_ms = 0;
    let title: string | undefined;
    if (options.screenshot !== false) {
      const request = this.captureRequest(options);
      try {
        ({ shot, resettle_ms, title } = await this.captureStable(page, () => capture(page, request), pending));
      } catch (err) {
        error ??= { code: 'screenshot_failed', message: firstLine(err) };
      }
    }
    this.zoom = undefined;
    this.settled = undefined;
    const capture_ms = performance.now() - started - resettle_ms;
    let aria: string | undefined;
    if (options.aria) {
      aria = await page.ariaSnapshot({ mode: 'ai', timeout: this.settings.actionTimeoutMs }).catch((err: unknown) => {
        error ??= { code: 'aria_failed', message: `the ARIA snapshot failed: ${firstLine(err)}` };
        return undefined;
      });
    }
    const tabs = await this.tabs(title);
    return {
      screenshot: { data: shot.data, mime: shot.mime, width: shot.width, height: shot.height },
      viewport: { ...this.settings.viewport },
      device_pixel_ratio: this.settings.dpr,
      scale: shot.scale,
      url: page.url(),
      title: tabs[this.active]?.title ?? '',
      tabs,
      ...(aria !== undefined ? { aria_snapshot: aria } : {}),
      last_action_error: error,
      timings: { action_ms: round(timings.action_ms), settle_ms: round(timings.settle_ms + resettle_ms), capture_ms: round(capture_ms) },
      ...(this.finished ? { finished: this.finished } : {}),
    };
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
  }
}

function toMouseButton(b: string | undefined): 'left' | 'right' | 'middle' {
  if (b === 'right' || b === 'middle') return b;
  if (b === undefined || b === 'left') return 'left';
  throw new StepError('bad_action', `mouse button "${b}" cannot be held; use left, right or middle`);
}

export function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
