import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TURN_LIMIT_UPSTREAM } from '../../src/proxy/calls/turn-limit.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, withAgentTimeout, type HarnessRolloutRecord } from '../helpers/harness-run.js';

// Codex and OpenClaw have no turn limit of their own: the proxy enforces max_turns. The reference solution
// of this task has three steps (render, manifest, archive + checksum; partial credit per stage), so with
// max_turns 2 the oracle gets two steps done and the third policy call is answered by the proxy.
const TASK = 'release-archive-pipeline';
const MAX_TURNS = 2;
const HARNESSES = [
  { name: 'codex', tool: 'exec_command' },
  { name: 'openclaw', tool: 'exec' },
];
const runs = new Map<string, HarnessRolloutRecord>();

beforeAll(async () => {
  // OpenClaw alone takes 15–40 s (more on a busy machine) before its first call; this test is about how the
  // episode ends, not about that start.
  const [task] = withAgentTimeout([TASK], 900);
  for (const { name } of HARNESSES) {
    await harnessLayer(name);
    const { rollouts } = await runHarness(name, [task!], { concurrency: 1, max_turns: MAX_TURNS });
    runs.set(name, rollouts[0]!);
  }
}, 2_400_000);

describe.each(HARNESSES)('max_turns enforced at the proxy for $name (real binary)', ({ name, tool }) => {
  it('serves max_turns policy calls, then ends the episode with a final message the harness accepts', () => {
    const r = runs.get(name)!;
    // The harness stopped by itself (no timeout, no failed call it retried) after exactly one more call.
    expect(r.errorType, explain(r)).toBeNull();
    expect(
      r.calls.filter((c) => c.label === 'policy').map((c) => c.seq),
      explain(r),
    ).toEqual([1, 2, 3]);
    const [first, second, last] = r.calls;
    for (const c of [first!, second!]) expect(c).toMatchObject({ status: 200, error: null, missingTokenIds: false });
    expect(toolNamesCalled([first!, second!])).toEqual([tool, tool]);
    // Nothing was generated: no token ids, and the error keeps it out of every training sample.
    expect(last).toMatchObject({ status: 200, upstream: TURN_LIMIT_UPSTREAM, promptTokenIds: null, completionTokenIds: null });
    expect(last!.error).toMatch(/max_turns \(2\) reached/);
    expect(toolNamesCalled([last!])).toEqual([]);
    expect(JSON.stringify(last!.response)).toContain('limit of 2 model turns');
  });

  it('leaves the task as two steps left it: render and manifest pass, archive and checksum were never made', () => {
    const r = runs.get(name)!;
    expect(r.reward, explain(r)).toBe(0.5);
    const checks = JSON.parse(readFileSync(path.join(r.artifacts, 'verifier', 'reward.json'), 'utf8')) as { checks: Record<string, boolean> };
    expect(Object.entries(checks.checks).filter(([, ok]) => ok).length).toBe(2);
  });
});
