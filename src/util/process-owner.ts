import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Identity of the orchestrator process that owns sandboxes, stored as a label. A pid alone is not
 * enough (pids are reused), so it carries the process start time from /proc.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counted after the parenthesised command name, which may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

export function ownerLabel(pid = process.pid): string {
  return `${os.hostname()}:${pid}:${processStartTime(pid) ?? '0'}`;
}

/** True when the owner label names a process on this host that still runs; labels of other hosts count as alive. */
export function ownerAlive(label: string): boolean {
  const [host, pidText, start] = label.split(':');
  if (host !== os.hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return processStartTime(pid) === start;
}
