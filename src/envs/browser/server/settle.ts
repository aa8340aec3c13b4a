import type { Page, Request } from 'playwright-core';

/** Injected into every page: remembers when the DOM last changed, so settling needs one cheap evaluate. */
export const MUTATION_PROBE = `(() => {
  if (window.__openforgeMutations) return;
  window.__openforgeMutations = { last: performance.now(), popup: false };
  // A click on a link to another window, or window.open: the step waits for the new tab.
  const open = window.open;
  window.open = function (...args) { window.__openforgeMutations.popup = true; return open.apply(this, args); };
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? e.target.closest('a[target]') : null;
    if (a && !['', '_self', '_top', '_parent'].includes(a.getAttribute('target'))) window.__openforgeMutations.popup = true;
  }, true);
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
 * and no DOM mutation for domQuietMs — or the deadline passes.
 */
export async function settle(page: Page, network: NetworkTracker, policy: SettlePolicy, deadline = performance.now() + policy.capMs): Promise<SettleResult> {
  let popup = false;
  while (performance.now() < deadline) {
    if (page.isClosed()) return { settled: true, popup };
    let state: { ready: string; quietFor: number; popup: boolean } | undefined;
    try {
      state = await Promise.race([
        page.evaluate(() => {
          const m = (window as unknown as { __openforgeMutations?: { last: number; popup: boolean } }).__openforgeMutations;
          const popup = !!m?.popup;
          if (m) m.popup = false;
          return { ready: document.readyState, quietFor: m ? performance.now() - m.last : Infinity, popup };
        }),
        sleep(Math.max(1, deadline - performance.now())).then(() => undefined),
      ]);
    } catch {
      state = undefined; // the document is being replaced by a navigation: try again
    }
    popup ||= !!state?.popup;
    if (state && state.ready !== 'loading' && !network.busy(policy.requestStaleMs)) {
      if (state.quietFor >= policy.domQuietMs) return { settled: true, popup };
      await sleep(Math.min(policy.domQuietMs - state.quietFor, deadline - performance.now()));
      continue;
    }
    await sleep(policy.pollMs);
  }
  return { settled: false, popup };
}

export interface SettleResult {
  settled: boolean;
  /** The page asked for a new window (target=_blank link, window.open). */
  popup: boolean;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
