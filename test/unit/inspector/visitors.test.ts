import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunFolder } from '../../../src/inspector/run-folder.js';
import { startInspector, type Inspector } from '../../../src/inspector/server.js';
import { Store } from '../../../src/store/store.js';

/**
 * The inspector serves recorded runs and starts replays and forks: only the person who launched it may
 * use it. Each check below is one way a page of another site, a process on the machine or a rebound DNS
 * name would otherwise get in.
 */
let inspector: Inspector;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-visitors-'));
  const store = await Store.open(path.join(dir, 'openforge.db'));
  await store.createRun('run-visitors', { config: {} });
  await store.close();
  inspector = await startInspector({ folder: await openRunFolder(dir) });
});

afterAll(async () => {
  await inspector.close();
});

const api = (route: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${inspector.origin}${route}`, { ...init, headers: { authorization: `Bearer ${inspector.token}`, ...init.headers } });

/** A GET with the Host header it names (fetch sets Host itself). */
function getWithHost(route: string, host: string): Promise<number> {
  const { hostname, port } = new URL(inspector.origin);
  return new Promise((resolve, reject) => {
    const req = http.get({ hostname, port, path: route, headers: { host, authorization: `Bearer ${inspector.token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

describe('the inspector', () => {
  it('listens on loopback by default and prints a URL with its launch token', () => {
    expect(inspector.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(inspector.url).toBe(`${inspector.origin}/?token=${inspector.token}`);
    expect(inspector.token.length).toBeGreaterThanOrEqual(20);
  });

  it('answers API requests that carry the token, and none that do not', async () => {
    expect((await api('/api/runs')).status).toBe(200);
    const anonymous = await fetch(`${inspector.origin}/api/runs`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toMatch(/token/);
    expect((await api('/api/runs', { headers: { authorization: 'Bearer not-the-token' } })).status).toBe(401);
  });

  it('refuses a Host that is not its own (DNS rebinding) and pages of other sites (Origin)', async () => {
    expect(await getWithHost('/api/runs', 'attacker.example')).toBe(403);
    expect(await getWithHost('/', `attacker.example:${new URL(inspector.origin).port}`)).toBe(403);
    expect(await getWithHost('/api/runs', `localhost:${new URL(inspector.origin).port}`)).toBe(200);
    expect((await api('/api/runs', { headers: { origin: 'http://attacker.example' } })).status).toBe(403);
    expect((await api('/api/runs', { headers: { origin: inspector.origin } })).status).toBe(200);
  });

  it('starts work (replay, fork) only for a JSON request with the token', async () => {
    const form = await api('/api/rollouts/x/replay', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(415);
    const anonymous = await fetch(`${inspector.origin}/api/rollouts/x/replay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    const json = await api('/api/rollouts/x/replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(404); // past the checks: there is no rollout x
  });
});
