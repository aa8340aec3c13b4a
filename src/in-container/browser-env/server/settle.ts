import type { Page, Request } from 'playwright-core';
import { cdpSession } from './capture.js';

/**
 * Injected into every document (an init script): keeps count of what the page still has to do, so settling
 * is one evaluate that returns as soon as the page is observably stable, instead of a fixed quiet window.
 * It tracks, per document:
 * - DOM mutations (a MutationObserver): a counter, so a screenshot can be checked afterwards (see Episode.observe);
 * - short timers and animation frames the page scheduled (setTimeout ≤ horizon, requestAnimationFrame) within
 *   500 ms of the document's start or of a user input, up to two generations deep, so a handler's delayed
 *   update is waited for but a polling loop is not;
 * - fetch/XHR in flight; CSS animations and transitions that end within the horizon;
 * - a cross-document navigation the page started (Navigation API `navigate`: link clicks, form submits,
 *   location changes), so a click that navigates waits for the new document instead of settling the old one;
 * - target=_blank links and window.open, so the step waits for the new tab.
 */
export const SETTLE_PROBE = `(() => {
  if (window.__openforgeSettle) return;
  const HORIZON = 500, GENERATIONS = 2, ARMED_MS = 500;
  const now = () => performance.now();
  const setT = window.setTimeout.bind(window), clearT = window.clearTimeout.bind(window);
  const raf = window.requestAnimationFrame.bind(window), caf = window.cancelAnimationFrame.bind(window);
  const s = window.__openforgeSettle = {
    doc: Math.random().toString(36).slice(2), seq: 0, lastWork: now(), timers: new Map(), frames: new Set(),
    requests: new Map(), nextRequest: 0, nav: null, popup: false, sleep: (ms) => new Promise((r) => setT(r, ms)),
    armedUntil: now() + ARMED_MS,
  };
  // Timers and frames count only when scheduled shortly after the document started or the user acted.
  const arm = (e) => { if (e.isTrusted) s.armedUntil = now() + ARMED_MS; };
  for (const type of ['pointerdown', 'pointerup', 'pointermove', 'click', 'keydown', 'keyup', 'input', 'change', 'wheel', 'submit']) window.addEventListener(type, arm, true);
  const armed = () => now() < s.armedUntil;
  // Callbacks run one generation deeper than the code that scheduled them; only the first GENERATIONS are
  // tracked, so a handler's delayed update is waited for but a self-rescheduling loop is not.
  let generation = 0;
  const wrap = (g, fn, settled) => function (...a) {
    settled();
    const prev = generation;
    generation = g;
    try { return fn.apply(this, a); } finally { generation = prev; if (g <= GENERATIONS) s.lastWork = now(); }
  };
  window.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== 'function') return setT(fn, ms, ...args);
    const g = (Number(ms) || 0) <= HORIZON && armed() ? generation + 1 : GENERATIONS + 1;
    const id = setT(wrap(g, fn, () => s.timers.delete(id)), ms, ...args);
    if (g <= GENERATIONS) s.timers.set(id, true);
    return id;
  };
  window.clearTimeout = function (id) { s.timers.delete(id); return clearT(id); };
  const setI = window.setInterval.bind(window);
  // Periodic work is not caused by an action: what it schedules is never tracked.
  window.setInterval = function (fn, ms, ...args) { return typeof fn === 'function' ? setI(wrap(GENERATIONS + 1, fn, () => {}), ms, ...args) : setI(fn, ms, ...args); };
  window.requestAnimationFrame = function (fn) {
    if (typeof fn !== 'function') return raf(fn);
    const g = armed() ? generation + 1 : GENERATIONS + 1;
    const id = raf(wrap(g, fn, () => s.frames.delete(id)));
    if (g <= GENERATIONS) s.frames.add(id);
    return id;
  };
  window.cancelAnimationFrame = function (id) { s.frames.delete(id); return caf(id); };
  const request = () => { const id = s.nextRequest++; s.requests.set(id, now()); return () => { if (s.requests.delete(id)) s.lastWork = now(); }; };
  const fetch0 = window.fetch;
  if (fetch0) window.fetch = function (...args) { const end = request(); const p = fetch0.apply(this, args); p.then(end, end); return p; };
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) { this.addEventListener('loadend', request(), { once: true }); return send0.apply(this, args); };
  if (window.navigation) {
    navigation.addEventListener('navigate', (e) => { if (!e.destination.sameDocument && !e.downloadRequest) s.nav = { event: e, at: now() }; });
    const over = () => { s.nav = null; s.lastWork = now(); };
    navigation.addEventListener('navigatesuccess', over);
    navigation.addEventListener('navigateerror', over);
  }
  // One look (from the server, over CDP): waits up to waitMs for the pending work above, then reports.
  const busy = (horizonMs, staleMs) => {
    if (document.readyState === 'loading') return 'the document is loading';
    const t = now();
    if (s.nav && !s.nav.event.defaultPrevented && t - s.nav.at < staleMs * 4) return 'a navigation is under way';
    if (s.timers.size) return 'a timer is pending';
    if (s.frames.size) return 'an animation frame is pending';
    for (const started of s.requests.values()) if (t - started < staleMs) return 'a request is in flight';
    for (const a of document.getAnimations()) {
      if (a.playState !== 'running') continue;
      const end = Number(a.effect && a.effect.getComputedTiming().endTime);
      const at = Number(a.currentTime || 0);
      if (Number.isFinite(end) && (end - at) / Math.abs(a.playbackRate || 1) <= horizonMs) return 'an animation is running';
    }
    return '';
  };
  s.check = async ({ waitMs, horizonMs, staleMs }) => {
    const until = now() + waitMs;
    let reason = busy(horizonMs, staleMs);
    while (reason && now() < until) {
      await s.sleep(4);
      reason = busy(horizonMs, staleMs);
    }
    const popup = s.popup;
    s.popup = false;
    return { busy: reason, doc: s.doc, seq: s.seq, workAgo: now() - s.lastWork, popup, title: document.title };
  };
  const open = window.open;
  window.open = function (...args) { s.popup = true; return open.apply(this, args); };
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? e.target.closest('a[target]') : null;
    if (a && !['', '_self', '_top', '_parent'].includes(a.getAttribute('target'))) s.popup = true;
  }, true);
  const observe = () => new MutationObserver(() => { s.seq++; })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) observe(); else document.addEventListener('DOMContentLoaded', observe, { once: true });
})();`;

/** What one look at the page found (the probe's check()). */
export interface PageState {
  /** Why the page is not yet stable ('' when it is). */
  busy: string;
  /** The document's identity and its DOM mutation count: equal marks mean nothing changed in between. */
  doc: string;
  seq: number;
  /** Milliseconds since tracked work (a timer, a frame callback, a request) last finished. */
  workAgo: number;
  popup: boolean;
  title: string;
}

export interface SettlePolicy {
  /** Hard cap: a page that never settles costs at most this. */
  capMs: number;
  /** After tracked work finishes (a timer, a request), the DOM changes it causes get this long. */
  workQuietMs: number;
  /** Requests older than this (long polls, streams) no longer hold the page busy. */
  requestStaleMs: number;
  /** Timers longer than this, and animations ending later than this, are not waited for. */
  horizonMs: number;
  /** How many screenshots a step takes at most while the page keeps changing under it. */
  maxCaptures: number;
}

export const DEFAULT_SETTLE: SettlePolicy = { capMs: 3000, workQuietMs: 15, requestStaleMs: 1500, horizonMs: 500, maxCaptures: 3 };

/** Requests on one page (navigations and subresources included), by start time, as the browser reports them. */
export class NetworkTracker {
  private readonly inflight = new Map<Request, number>();
  /** When the latest request finished (performance.now()). */
  lastFinished = 0;

  constructor(page: Page) {
    page.on('request', (r) => this.inflight.set(r, performance.now()));
    const finished = (r: Request) => {
      if (this.inflight.delete(r)) this.lastFinished = performance.now();
    };
    page.on('requestfinished', finished);
    page.on('requestfailed', finished);
  }

  /** True while a request started at or after `since`, and younger than staleMs, is in flight. */
  busy(since: number, staleMs: number): boolean {
    const now = performance.now();
    for (const [req, started] of this.inflight) {
      if (now - started > staleMs) this.inflight.delete(req);
      else if (started >= since) return true;
    }
    return false;
  }
}

/** A stable page: its document and mutation count at that moment. */
export interface SettleMark {
  doc: string;
  seq: number;
}

export interface SettleResult {
  settled: boolean;
  /** The page asked for a new window (target=_blank link, window.open). */
  popup: boolean;
  mark?: SettleMark;
}

/**
 * Waits until the page is observably stable after the actions that began at `since`: no navigation under
 * way (or the new document parsed), none of the page's short timers, frame callbacks, requests or finite
 * animations pending, no request started since `since` in flight, and workQuietMs since such work last
 * finished — or the deadline passes. A page where nothing is pending returns after one evaluate.
 */
export async function settle(
  page: Page,
  network: NetworkTracker,
  policy: SettlePolicy,
  since: number,
  deadline = performance.now() + policy.capMs,
): Promise<SettleResult> {
  let popup = false;
  while (performance.now() < deadline) {
    if (page.isClosed()) return { settled: true, popup };
    const state = await look(page, policy, deadline, Math.min(250, deadline - performance.now()));
    popup ||= !!state?.popup;
    if (!state) {
      await sleep(Math.min(10, deadline - performance.now())); // the document is being replaced by a navigation
      continue;
    }
    if (state.busy) continue; // the page waited up to 250 ms for its own work; look again
    if (network.busy(since, policy.requestStaleMs)) {
      await sleep(Math.min(5, deadline - performance.now()));
      continue;
    }
    const quietFor = Math.min(state.workAgo, performance.now() - network.lastFinished);
    if (quietFor < policy.workQuietMs) {
      await sleep(Math.min(policy.workQuietMs - quietFor, deadline - performance.now()));
      continue;
    }
    return { settled: true, popup, mark: { doc: state.doc, seq: state.seq } };
  }
  return { settled: false, popup };
}

/**
 * After a screenshot that began `captureMs` ago at `mark`: the page's state when it provably did not change
 * while it was taken — same document, no DOM mutation, no work pending or finished in the meantime —
 * else undefined.
 */
export async function unchangedSince(
  page: Page,
  network: NetworkTracker,
  policy: SettlePolicy,
  mark: SettleMark,
  since: number,
  captureMs: number,
): Promise<PageState | undefined> {
  if (page.isClosed()) return undefined;
  const state = await look(page, policy, performance.now() + 1000, 0);
  if (!state || state.busy || state.doc !== mark.doc || state.seq !== mark.seq) return undefined;
  if (state.workAgo < captureMs || performance.now() - network.lastFinished < captureMs) return undefined;
  return network.busy(since, policy.requestStaleMs) ? undefined : state;
}

/**
 * One look, without waiting, for a screenshot that started at `capturedAt`: the page's mark when nothing
 * is pending and no tracked work finished since the screenshot started (so the screenshot cannot predate
 * a change the step caused); `popup` when the page asked for a new window.
 */
export async function stableNow(
  page: Page,
  network: NetworkTracker,
  policy: SettlePolicy,
  since: number,
  capturedAt: number,
): Promise<{ mark?: SettleMark; popup: boolean }> {
  if (page.isClosed()) return { popup: false };
  const state = await look(page, policy, performance.now() + 1000, 0);
  if (!state) return { popup: false };
  const stable =
    !state.busy &&
    !state.popup &&
    state.workAgo > performance.now() - capturedAt &&
    network.lastFinished < capturedAt &&
    !network.busy(since, policy.requestStaleMs);
  return { popup: state.popup, ...(stable ? { mark: { doc: state.doc, seq: state.seq } } : {}) };
}

/** Asks the page's probe over the page's CDP session (a cheap round trip); undefined while a document is being replaced. */
async function look(page: Page, policy: SettlePolicy, deadline: number, waitMs: number): Promise<PageState | undefined> {
  const args = JSON.stringify({ waitMs: Math.max(0, waitMs), horizonMs: policy.horizonMs, staleMs: policy.requestStaleMs });
  // A document without the probe (about:blank before the first navigation) counts as stable.
  const expression = `window.__openforgeSettle ? window.__openforgeSettle.check(${args}) : { busy: document.readyState === 'loading' ? 'the document is loading' : '', doc: 'none', seq: 0, workAgo: 1e9, popup: false, title: document.title }`;
  try {
    const cdp = await cdpSession(page);
    const reply = (await Promise.race([
      cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }),
      sleep(Math.max(1, deadline - performance.now())).then(() => undefined),
    ])) as { result?: { value?: PageState }; exceptionDetails?: unknown } | undefined;
    return reply?.exceptionDetails ? undefined : reply?.result?.value;
  } catch {
    return undefined; // the document is being replaced by a navigation
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
