import type { DesktopSettings } from '../config/task.js';
import type { Sandbox } from '../sandbox/types.js';
import { RolloutError } from '../util/errors.js';
import { serviceLogs, startEnvironment, tail, type EnvironmentSecrets } from './gui-environment.js';

/** Starts Xvfb, the session bus and AT-SPI, the window manager and panel, VNC/noVNC and the desktop env server (docs/desktop.md). */
export const START_DESKTOP_ENV = '/opt/openforge/bin/start-desktop-env';

/**
 * Brings a desktop task's environment up inside its container and opens the episode: runs the start script
 * (the screen at the task's size), then POST /reset with the apps to launch and the window to wait for, in one
 * exec. Every failure is an `environment_setup` error carrying the tail of what the script or the env server said.
 */
export async function startDesktopEnvironment(box: Sandbox, settings: DesktopSettings, secrets: EnvironmentSecrets): Promise<{ title: string }> {
  const timeoutSec = settings.setup_timeout_sec;
  const env = {
    OPENFORGE_ENV_TOKEN: secrets.envToken,
    OPENFORGE_VNC_PASSWORD: secrets.vncPassword,
    OPENFORGE_SCREEN: `${settings.screen.width}x${settings.screen.height}x24`,
  };
  const body = JSON.stringify({
    launch: settings.launch,
    ...(settings.wait_for_window ? { wait_for_window: settings.wait_for_window } : {}),
    timeout_ms: Math.round(timeoutSec * 1000 * 0.8),
  });
  const answer = await startEnvironment(box, START_DESKTOP_ENV, timeoutSec, env, { body, fields: ['title', 'last_action_error'], timeoutSec });
  if (answer.last_action_error) {
    const e = answer.last_action_error;
    throw new RolloutError(
      'environment_setup',
      `the desktop episode could not start: ${e.code ?? 'error'}: ${e.message ?? ''}\n${tail(await serviceLogs(box))}`,
    );
  }
  return { title: answer.title ?? '' };
}
