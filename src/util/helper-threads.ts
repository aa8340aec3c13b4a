import { readdirSync } from 'node:fs';
import os from 'node:os';

/** Niceness the serving commands give their helper threads unless told otherwise (19 = the lowest priority). */
export const HELPER_THREADS_NICE = 19;

/**
 * Lowers the scheduling priority of every thread of this process except the main one (Linux; a
 * no-op elsewhere), and returns how many it lowered.
 *
 * Why: V8 runs GC marking, sweeping and optimising compiles on a pool of 4 threads, and libuv runs
 * file and SQLite work on 4 more, however few CPUs the process may use. When the proxy has fewer
 * cores than busy threads (a pinned or cgroup-limited proxy, or a machine busy with rollouts), the
 * scheduler gives each of them the same share as the thread that serves requests: a concurrent
 * marking cycle's 4 tasks left that thread a fifth of its core for 15–25 ms at a time (perf sched
 * traces of the proxy bench, pinned). At the lowest priority the helpers run when the serving thread
 * waits, and their work still gets done: V8 finishes marking on the main thread if it must, and
 * records only wait a little longer to reach SQLite.
 *
 * Threads created later inherit the priority of the thread that creates them (the main thread's),
 * so worker threads started afterwards are not affected.
 */
export function lowerHelperThreads(nice: number = HELPER_THREADS_NICE): number {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new RangeError(`niceness ${nice}: use a whole number from 0 to 19`);
  if (nice === 0 || process.platform !== 'linux') return 0;
  let threadIds: number[];
  try {
    threadIds = readdirSync('/proc/self/task').map(Number);
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const tid of threadIds) {
    if (tid === process.pid) continue;
    try {
      // on Linux, setpriority on a thread id changes that thread alone
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
      lowered++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return lowered;
}
