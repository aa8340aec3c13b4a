import { TRUSTED_BASH, TRUSTED_BUSYBOX } from '../sandbox/verifier-tools.js';

/**
 * The verifier phase as one exec of the trusted busybox (images/verifier-tools), so nothing the agent left
 * in the container takes part in grading:
 * 1. every process the agent started (at or after its phase began: start time in clock ticks since boot) is
 *    stopped, killed, and checked gone, whatever it replaced; what ran before the agent (the container's own
 *    init and keeper, a browser task's display, sites and env server) is spared;
 * 2. /tests and /logs/verifier are emptied, and the tests unpacked from stdin with busybox's tar;
 * 3. tests/test.sh runs under the trusted bash, its output in /logs/verifier, killed at the timeout.
 * The reward then comes out through the engine's archive API (or, on a cluster, busybox's tar), never
 * through a tool of the container's. Every command below is a shell builtin or a busybox applet by path.
 */
const KILL_AGENT = `# sets st to a process's start time and state to its state; no process is forked
stat_of() {
  read -r line < /proc/$1/stat 2>/dev/null || return 1
  line=\${line##*) }
  set -- $line
  state=$1; st=\${20}
}
if [ "$boundary" = 0 ]; then stat_of 1; boundary=$((st + 100)); fi
round=0
while :; do
  left=
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    [ "$p" = "$me" ] || [ "$p" = 1 ] && continue
    stat_of "$p" || continue
    [ "$state" = Z ] && continue
    [ "$st" -ge "$boundary" ] && left="$left $p"
  done
  [ -z "$left" ] && break
  round=$((round + 1))
  if [ "$round" -gt 50 ]; then echo "openforge-grader: processes the agent left would not die:$left" >&2; exit 125; fi
  kill -STOP $left 2>/dev/null
  kill -KILL $left 2>/dev/null
  $B usleep 20000
done`;

const GRADE_SCRIPT = `set -u
B=${TRUSTED_BUSYBOX}
boundary=$1; limit=$2; workdir=$3; shift 3
for kv in "$@"; do export "$kv"; done
me=$$
${KILL_AGENT}
$B rm -rf /tests /logs/verifier && $B mkdir -p /tests /logs/verifier || { echo "openforge-grader: cannot empty /tests and /logs/verifier" >&2; exit 126; }
$B tar -x -f - -C / || { echo "openforge-grader: unpacking the tests failed" >&2; exit 126; }
exec </dev/null
cd "$workdir" || { echo "openforge-grader: no working directory $workdir" >&2; exit 126; }
exec $B timeout -s TERM -k 5 "$limit" ${TRUSTED_BASH} /tests/test.sh >/logs/verifier/test-stdout.txt 2>/logs/verifier/test-stderr.txt`;

/**
 * The grader's command line: the agent phase's start (0: unknown, then the container's init's start + 1 s),
 * the timeout in seconds, the working directory and the grader's environment (set by the script itself, so
 * no backend wraps the command in a tool of the image to set them).
 */
export function sealedGraderCommand(grader: {
  agentStartTicks: number | undefined;
  timeoutSec: number;
  workdir: string;
  env: Record<string, string>;
}): string[] {
  return [
    TRUSTED_BUSYBOX,
    'sh',
    '-c',
    GRADE_SCRIPT,
    'openforge-grader',
    String(grader.agentStartTicks ?? 0),
    String(Math.ceil(grader.timeoutSec)),
    grader.workdir,
    ...Object.entries(grader.env).map(([k, v]) => `${k}=${v}`),
  ];
}

const KILL_AGENT_SCRIPT = `set -u
B=${TRUSTED_BUSYBOX}
boundary=$1
me=$$
${KILL_AGENT}`;

/**
 * Step 1 of the grader alone: every process the agent left is killed. Run before the verifier phase is given
 * what the agent must not have (the internet, for `[verifier] allow_internet`).
 */
export function agentKillCommand(agentStartTicks: number | undefined): string[] {
  return [TRUSTED_BUSYBOX, 'sh', '-c', KILL_AGENT_SCRIPT, 'openforge-kill-agent', String(agentStartTicks ?? 0)];
}

/** Exit codes of the grader's own steps (the rest are test.sh's, or busybox timeout's 143 / 137). */
export const GRADER_SETUP_FAILED = 126;
export const AGENT_PROCESSES_LEFT = 125;

/** How the grader's exec ended: timed out when busybox's timeout stopped test.sh at the limit. */
export function graderTimedOut(exitCode: number, durationMs: number, timeoutSec: number): boolean {
  return (exitCode === 143 || exitCode === 137) && durationMs >= timeoutSec * 1000;
}

/**
 * The agent phase's exec prints, before it runs the harness, its own process's start time (field 22 of
 * /proc/self/stat, read by the shell itself): every process of the agent starts at or after it.
 */
export const AGENT_START_MARK = 'openforge-agent-start';

/** The shell line that prints the mark; the exec's stdout is the host's until the harness's output is redirected. */
export const PRINT_AGENT_START = `read -r s </proc/self/stat && echo "${AGENT_START_MARK} $s"`;

/** The start time (clock ticks since boot) the agent's exec printed, or undefined when it printed none. */
export function agentStartTicks(stdout: string): number | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(`${AGENT_START_MARK} `));
  if (!line) return undefined;
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  return Number.isSafeInteger(ticks) && ticks > 0 ? ticks : undefined;
}
