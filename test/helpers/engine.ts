import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';

const PID_FILE = '/var/run/docker.pid';
const LOG_FILE = '/var/log/openforge-dockerd.log';

/**
 * Whether this test process may restart the local Docker engine: root, and a dockerd started by hand
 * (scripts/setup.sh), not by an init system that would start it again on its own.
 */
export function canRestartEngine(): string | null {
  if (process.getuid?.() !== 0) return 'restarting the Docker engine needs root';
  if (!existsSync(PID_FILE)) return `no ${PID_FILE}: dockerd is not running`;
  if (spawnSync('systemctl', ['is-active', '--quiet', 'docker']).status === 0) return 'dockerd runs under systemd';
  return null;
}

/** Stops dockerd (SIGTERM: it stops its containers, as on a host reboot or an upgrade) and waits for it to exit. */
export async function stopEngine(): Promise<void> {
  const pid = Number(readFileSync(PID_FILE, 'utf8').trim());
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`dockerd (pid ${pid}) did not exit within 60 s of SIGTERM`);
}

/** Starts dockerd as scripts/setup.sh does and waits until `docker info` answers. */
export async function startEngine(): Promise<void> {
  const log = openSync(LOG_FILE, 'a');
  spawn('dockerd', [], { detached: true, stdio: ['ignore', log, log] }).unref();
  for (let i = 0; i < 600; i++) {
    if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`dockerd did not answer within 60 s of starting: see ${LOG_FILE}`);
}

/** Whether `docker info` answers now. */
export function engineAnswers(): boolean {
  return spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
}
