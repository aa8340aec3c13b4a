import type { Page, Request } from 'playwright-core';

/** Injected into every page: remembers when the DOM last changed, so settling needs one cheap evaluate. */
export const MUTATION_PROBE = `(() => {
  if (window.__openforgeMutations) return;
  window.__openforgeMutations = { last: performance.now() };
  const start = () => new MutationObserver(() => { window.__openforgeMutations.last = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start, { once: true });
})();`;

export interface SettlePolicy {
  /** Hard cap: a page that never settles costs at most this. */
  capMs: number;
  /** The DOM counts as quiet after this long without a mutation. */
  domQuietMs: number;
  /** Requests older than this (long polls, streams) no longer hold the page busy. */
  requestStaleMs: number;
  pollMs: number;
}

export const DEFAULT_SETTLE: SettlePolicy = { capMs: 3000, domQuietMs: 30, requestStaleMs: 1500, pollMs: 10 };

/** Requests in flight on one page, by start time. */
export class NetworkTracker {
  private readonly inflight = new Map<Request, number>();

  constructor(page: Page) {
    page.on('request', (r) => this.inflight.set(r, performance.now()));
    page.on('requestfinished', (r) => this.inflight.delete(r));
    page.on('requestfailed', (r) => this.inflight.delete(r));
  }

  busy(staleMs: number): boolean {
    const now = performance.now();
    for (const [req, started] of this.inflight) {
      if (now - started > staleMs) this.inflight.delete(req);
      else return true;
    }
    return false;
  }
}

/**
 * Waits until the page is settled: the document parsed (domcontentloaded), no recent request in flight,
 * and no DOM mutation for domQuietMs — or the cap passes. Returns whether it settled.
 */
export async function settle(page: Page, network: NetworkTracker, policy: SettlePolicy): Promise<boolean> {
  const deadline = performance.now() + policy.capMs;
  while (performance.now() < deadline) {
    if (page.isClosed()) return true;
    let state: { ready: string; quietFor: number } | undefined;
    try {
      state = await Promise.race([
        page.evaluate(() => {
          const m = (window as unknown as { __openforgeMutations?: { last: number } }).__openforgeMutations;
          return { ready: document.readyState, quietFor: m ? performance.now() - m.last : Infinity };
        }),
        sleep(Math.max(1, deadline - performance.now())).then(() => undefined),
      ]);
    } catch {
      state = undefined; // the document is being replaced by a navigation: try again
    }
    if (state && state.ready !== 'loading' && !network.busy(policy.requestStaleMs)) {
      if (state.quietFor >= policy.domQuietMs) return true;
      await sleep(Math.min(policy.domQuietMs - state.quietFor, deadline - performance.now()));
      continue;
    }
    await sleep(policy.pollMs);
  }
  return false;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
