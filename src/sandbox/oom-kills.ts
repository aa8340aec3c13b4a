/** Prints the sandbox's memory-controller counters from inside: cgroup v2's memory.events or v1's memory.oom_control. */
export const OOM_KILLS_COMMAND = ['sh', '-c', 'cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null'];

/** Both files count the kills on an `oom_kill N` line. */
export function parseOomKills(text: string): number {
  const match = /^oom_kill (\d+)/m.exec(text);
  return match ? Number(match[1]) : 0;
}
