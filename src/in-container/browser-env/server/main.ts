/**
 * The env server's entry point inside the browser image (/opt/openforge/browser/app/in-container/browser-env/server/main.js),
 * started by start-browser-env. Settings come from the environment.
 */
import { envNumber as num, envServerOptions, logLine as log, serve } from '../../env-server/serve.js';
import { buildApp } from './app.js';
import { BrowserEnv, DEFAULT_ENV_OPTIONS } from './browser-env.js';
import { BrowserHost } from './browser-host.js';

const env = process.env;
const [width, height] = (env.OPENFORGE_SCREEN ?? '1280x800x24').split('x').map(Number);

const host = new BrowserHost({
  executablePath: env.OPENFORGE_BROWSER_EXECUTABLE ?? '/usr/bin/chromium',
  headless: env.OPENFORGE_HEADLESS === '1' || !env.DISPLAY,
  window: { width: width || 1280, height: height || 800 },
  log,
});
const browserEnv = new BrowserEnv(host, {
  ...DEFAULT_ENV_OPTIONS,
  actionTimeoutMs: num(env.OPENFORGE_ACTION_TIMEOUT_MS, DEFAULT_ENV_OPTIONS.actionTimeoutMs),
  captureDeadlineMs: num(env.OPENFORGE_CAPTURE_DEADLINE_MS, DEFAULT_ENV_OPTIONS.captureDeadlineMs),
  settle: {
    ...DEFAULT_ENV_OPTIONS.settle,
    capMs: num(env.OPENFORGE_SETTLE_CAP_MS, DEFAULT_ENV_OPTIONS.settle.capMs),
    requestStaleMs: num(env.OPENFORGE_SETTLE_REQUEST_STALE_MS, DEFAULT_ENV_OPTIONS.settle.requestStaleMs),
  },
});
const app = buildApp(browserEnv, envServerOptions(env));

await host.get(); // launch Chromium before answering /health
const port = await serve(app, () => browserEnv.close(), env);
log(`browser env server on :${port} (chromium ${host.running ? 'running' : 'not running'})`);
