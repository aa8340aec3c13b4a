/**
 * The desktop env server's entry point inside the desktop image
 * (/opt/openforge/desktop/app/in-container/desktop-env/server/main.js), started by start-desktop-env.
 * Settings come from the environment.
 */
import { DEFAULT_DESKTOP_OPTIONS, DesktopEnv } from '../desktop-env.js';
import { XDisplay } from '../x-display.js';
import { buildApp } from './app.js';

const env = process.env;
const num = (v: string | undefined, fallback: number) => (v && Number.isFinite(Number(v)) ? Number(v) : fallback);
const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

const display = await XDisplay.connect(env.DISPLAY ?? ':99');
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
const app = buildApp(desktop, {
  verifierDir: env.OPENFORGE_VERIFIER_DIR ?? '/logs/verifier',
  evaluateTimeoutMs: num(env.OPENFORGE_EVALUATE_TIMEOUT_MS, 120_000),
  token: env.OPENFORGE_ENV_TOKEN || undefined,
});
const port = num(env.OPENFORGE_ENV_PORT, 7000);
await app.listen({ host: env.OPENFORGE_ENV_HOST ?? '0.0.0.0', port });
log(`desktop env server on :${port} (display ${env.DISPLAY ?? ':99'}, ${display.width}x${display.height})`);

const stop = async () => {
  await app.close().catch(() => undefined);
  desktop.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
