import type { ToolResultView } from '../../proxy/protocols/types.js';

/**
 * An exit status as harnesses write it into a command's result: `Exit code: 1` (forge-agent), `Exit code 1`
 * (Claude Code), `Process exited with code 1` (Codex), `Exit Code: 1` (Qwen Code), `(Command exited with
 * code 1)` (OpenClaw), `"exit_code": 1`, `exit status 1`.
 */
const EXIT_STATUS = /\bexit(?:ed)?[ _]?(?:with )?(?:code|status)["']?\s*[:=]?\s*(-?\d+)/i;

/**
 * What a failure reads like where the result carries no exit status (opencode's bash results, file tools):
 * a line that starts with `Error`/`fatal`, Claude Code's `<tool_use_error>`, or a shell's or Python's error.
 */
const FAILURE_TEXT = [
  /^\s*(?:error|fatal)(?::|\s)(?!\s*\(none\))/im,
  /<tool_use_error>/,
  /No such file or directory|command not found|Permission denied|Is a directory|Not a directory/,
  /Traceback \(most recent call last\)/,
];

/** True when a tool's result says it failed: by the protocol's own flag, else by an exit status, else by its text. */
export function toolFailed(result: ToolResultView): boolean {
  if (result.isError !== undefined) return result.isError;
  const status = EXIT_STATUS.exec(result.output);
  if (status) return Number(status[1]) !== 0;
  return FAILURE_TEXT.some((pattern) => pattern.test(result.output));
}
