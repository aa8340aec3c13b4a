import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/in-container/browser-env/server/app.js';
import type { BrowserEnv } from '../../../../src/in-container/browser-env/server/browser-env.js';

/** Only what the routes below touch: the env server's browser is not needed to check who may ask it. */
const env = {
  host: { running: true, restarts: 0, get: async () => undefined },
  observation: async () => ({ url: 'about:blank' }),
} as unknown as BrowserEnv;

describe('the env server of a rollout', () => {
  it('answers only requests that carry its token, but /health to anyone', async () => {
    const app = buildApp(env, { verifierDir: '/tmp', evaluateTimeoutMs: 1000, token: 'rollout-token' });
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    const anonymous = await app.inject({ method: 'GET', url: '/observation' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toMatch(/Authorization: Bearer/);
    expect((await app.inject({ method: 'POST', url: '/evaluate', payload: {} })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/observation', headers: { authorization: 'Bearer another-rollout' } })).statusCode).toBe(401);
    const own = await app.inject({ method: 'GET', url: '/observation', headers: { authorization: 'Bearer rollout-token' } });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toEqual({ url: 'about:blank' });
    await app.close();
  });
});
