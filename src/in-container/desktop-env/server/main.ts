/**
 * The desktop env server's entry point inside the desktop image
 * (/opt/openforge/desktop/app/in-container/desktop-env/server/main.js), started by start-desktop-env.
 * Settings come from the environment.
 */
import { envNumber as num, envServerOptions, logLine as log, serve } from '../../env-server/serve.js';
import { DEFAULT_DESKTOP_OPTIONS, DesktopEnv } from '../desktop-env.js';
import { XDisplay } from '../x-display.js';
import { buildApp } from './app.js';

const env = process.env;

// start-desktop-env starts the env server alongside Xvfb: wait for the display as long as the script does.
const display = await XDisplay.connectWhenUp(env.DISPLAY ?? ':99', num(env.OPENFORGE_START_DEADLINE, 30) * 1000);
const desktop = new DesktopEnv(display, {
  ...DEFAULT_DESKTOP_OPTIONS,
  actionTimeoutMs: num(env.OPENFORGE_ACTION_TIMEOUT_MS, DEFAULT_DESKTOP_OPTIONS.actionTimeoutMs),
  captureDeadlineMs: num(env.OPENFORGE_CAPTURE_DEADLINE_MS, DEFAULT_DESKTOP_OPTIONS.captureDeadlineMs),
  settle: {
    quietMs: num(env.OPENFORGE_SETTLE_QUIET_MS, DEFAULT_DESKTOP_OPTIONS.settle.quietMs),
    firstDamageMs: num(env.OPENFORGE_SETTLE_FIRST_DAMAGE_MS, DEFAULT_DESKTOP_OPTIONS.settle.firstDamageMs),
    capMs: num(env.OPENFORGE_SETTLE_CAP_MS, DEFAULT_DESKTOP_OPTIONS.settle.capMs),
  },
});
const app = buildApp(desktop, envServerOptions(env));
const port = await serve(app, () => desktop.close(), env);
log(`desktop env server on :${port} (display ${env.DISPLAY ?? ':99'}, ${display.width}x${display.height})`);
