import { describe, expect, it } from 'vitest';
import { waitExecReady } from '../../../src/sandbox/exec-ready.js';
import type { ExecResult } from '../../../src/sandbox/types.js';
import { RolloutError } from '../../../src/util/errors.js';

/** A sandbox whose execs answer with the given outcomes in turn (the last one repeats). */
function sandboxAnswering(...outcomes: (ExecResult | Error)[]) {
  const calls: string[][] = [];
  return {
    calls,
    exec: async (command: string[]) => {
      calls.push(command);
      const outcome = outcomes[Math.min(calls.length - 1, outcomes.length - 1)]!;
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
}
const ok = { exitCode: 0, stdout: '', stderr: '' } as ExecResult;
const poll = { timeoutMs: 2_000, intervalMs: 1, what: 'container', fatal: () => undefined };

describe('waitExecReady', () => {
  it('probes with `true` until an exec answers', async () => {
    const sandbox = sandboxAnswering(new Error('connection refused'), { ...ok, exitCode: 126, stderr: 'not yet' }, ok);
    await waitExecReady(sandbox, poll);
    expect(sandbox.calls).toEqual([['true'], ['true'], ['true']]);
  });

  it('fails at once on an error the backend calls fatal', async () => {
    const gone = new Error('container is not running');
    const sandbox = sandboxAnswering(gone, ok);
    const fatal = new RolloutError('infrastructure', 'container did not start: container is not running');
    await expect(waitExecReady(sandbox, { ...poll, fatal: (err) => (err === gone ? fatal : undefined) })).rejects.toBe(fatal);
    expect(sandbox.calls).toHaveLength(1);
  });

  it('gives up at the deadline, naming the sandbox and the last answer', async () => {
    const sandbox = sandboxAnswering({ ...ok, exitCode: 1, stderr: 'exec format error\n' });
    const failure = waitExecReady(sandbox, { ...poll, timeoutMs: 50, intervalMs: 5, what: 'pod r-7' });
    await expect(failure).rejects.toThrow(RolloutError);
    await expect(failure).rejects.toThrow('pod r-7 not exec-ready after 0.05 s: exit 1: exec format error');
  });
});
