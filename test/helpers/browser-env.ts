import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Observation } from '../../src/in-container/browser-env/actions.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';
import type { RunNetwork, Sandbox } from '../../src/sandbox/types.js';

/** The real engine and the browser image (built once from images/browser + dist/in-container/browser-env, then cached). */
export async function browserImage(): Promise<{ backend: DockerBackend; image: string }> {
  const backend = new DockerBackend();
  await backend.check();
  const image = await new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA }).ensureBrowser();
  return { backend, image };
}

export interface BrowserEnvContainer {
  sandbox: Sandbox;
  /** http://<container IP on the run network>:7000 — the host reaches it directly. */
  url: string;
  post<T = Observation>(route: string, body?: unknown): Promise<T>;
  get<T = Observation>(route: string): Promise<T>;
  /** Removes the container and the run network. */
  stop(): Promise<void>;
}

const PAGES = path.resolve(import.meta.dirname, '../fixtures/browser-pages');

/**
 * One container from the browser image on its own proxy-only (internal) network, with the test pages of
 * test/fixtures/browser-pages served on http://127.0.0.1:8000 inside it (a services.d starter), and
 * start-browser-env run as the orchestrator runs it.
 */
export async function startBrowserEnv(runId: string, env: Record<string, string> = {}): Promise<BrowserEnvContainer> {
  const { backend, image } = await browserImage();
  const network: RunNetwork = await backend.prepareNetwork(runId, 'proxy-only');
  const sandbox = await backend.create({
    runId,
    rolloutId: `${runId}-${Math.random().toString(36).slice(2, 8)}`,
    image,
    env,
    resources: { cpus: 2, memoryMb: 2048, pids: 2048 },
    network,
    lifetimeSec: 1800,
  });
  const stop = async () => {
    await backend.removeRun(runId);
    await backend.releaseNetwork(network).catch(() => undefined);
  };
  try {
    await sandbox.writeFiles([
      ...readdirSync(PAGES)
        .filter((f) => f.endsWith('.html'))
        .map((f) => ({ path: `/srv/pages/${f}`, content: readFileSync(path.join(PAGES, f)) })),
      { path: '/opt/openforge/services.d/10-pages', content: readFileSync(path.join(PAGES, 'serve-pages')), mode: 0o755 },
    ]);
    // A generous deadline: on a loaded shared machine Node and Chromium can take a minute to come up.
    const started = await sandbox.exec(['/opt/openforge/bin/start-browser-env'], { timeoutSec: 330, env: { OPENFORGE_START_DEADLINE: '300' } });
    if (started.exitCode !== 0) throw new Error(`start-browser-env exited ${started.exitCode}:\n${started.stdout}\n${started.stderr}`);
    // the sandbox's address on the run network (a proxy-only sandbox has its network holder's)
    const ip = await sandbox.address?.();
    if (!ip) throw new Error(`container has no address on ${network.name}`);
    const url = `http://${ip}:7000`;
    const call = async <T>(route: string, init?: RequestInit): Promise<T> => {
      const res = await fetch(`${url}${route}`, init);
      const text = await res.text();
      if (!res.ok) throw Object.assign(new Error(`${route} → ${res.status}: ${text}`), { status: res.status, body: text });
      return JSON.parse(text) as T;
    };
    return {
      sandbox,
      url,
      stop,
      get: (route) => call(route),
      post: (route, body) => call(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }),
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The ref of the first ARIA-snapshot line naming `role "name"`, e.g. refOf(aria, 'button', 'Bravo'). */
export function refOf(aria: string | undefined, role: string, name: string): string {
  const line = aria?.split('\n').find((l) => l.includes(`${role} "${name}"`));
  const ref = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`no ${role} "${name}" in the aria snapshot:\n${aria}`);
  return ref;
}
