import { type Browser, chromium } from 'playwright-core';

/**
 * Flags that keep Chromium off the network it does not need (updates, sync, metrics) and working in a
 * container: root (no sandbox), no GPU, /tmp instead of the small /dev/shm.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
  '--metrics-recording-only',
  '--password-store=basic',
  '--window-position=0,0',
];

/** Whether the browser still answers a CDP round trip within 2 s. */
async function probe(browser: Browser): Promise<boolean> {
  try {
    const cdp = await Promise.race([browser.newBrowserCDPSession(), new Promise<never>((_, r) => setTimeout(() => r(new Error('timeout')), 2000))]);
    await cdp.detach().catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

export interface BrowserHostOptions {
  executablePath: string;
  /** Headed on $DISPLAY (the VNC view shows it) unless true. */
  headless: boolean;
  /** Window size (the Xvfb screen). */
  window: { width: number; height: number };
  log: (line: string) => void;
}

/** One Chromium process for the server's lifetime; relaunched when it dies, and the restarts counted. */
export class BrowserHost {
  private browser?: Browser;
  private launching?: Promise<Browser>;
  restarts = 0;
  /** Set when the browser died; the next episode step reports it once. */
  private crashNotice = false;

  constructor(private readonly options: BrowserHostOptions) {}

  get running(): boolean {
    return !!this.browser?.isConnected();
  }

  /** True once after a crash was recovered, so the episode can tell its caller. */
  takeCrashNotice(): boolean {
    const seen = this.crashNotice;
    this.crashNotice = false;
    return seen;
  }

  async get(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= this.launch().finally(() => (this.launching = undefined));
    return this.launching;
  }

  private async launch(): Promise<Browser> {
    const { width, height } = this.options.window;
    const browser = await chromium.launch({
      executablePath: this.options.executablePath,
      headless: this.options.headless,
      args: [...CHROMIUM_FLAGS, `--window-size=${width},${height}`],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
    });
    this.browser = browser;
    browser.on('disconnected', () => {
      if (this.browser !== browser || this.closing) return;
      this.browser = undefined;
      this.restarts++;
      this.crashNotice = true;
      this.options.log(`chromium exited unexpectedly; relaunching (restart ${this.restarts})`);
      void this.get().catch((err) => this.options.log(`relaunch failed: ${(err as Error).message}`));
    });
    return browser;
  }

  private closing = false;

  /**
   * After a step found the browser dead: when Playwright has not noticed yet (the process was killed a
   * moment ago), drop the old connection and count a restart; the next get() launches a new browser.
   */
  async replaceIfDead(seen?: Browser): Promise<void> {
    if (!seen || seen !== this.browser) return;
    if (seen.isConnected() && (await probe(seen))) return;
    this.browser = undefined;
    this.restarts++;
    this.crashNotice = false;
    this.options.log(`chromium stopped answering; relaunching (restart ${this.restarts})`);
    await seen.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.browser?.close().catch(() => undefined);
    this.browser = undefined;
  }
}
