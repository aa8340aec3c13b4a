import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';

/**
 * Every rollout's episode as Harbor's ATIF trajectory, built from the proxy's records whatever the harness
 * and wire protocol, handed to the grader at /logs/agent/trajectory.json and collected as agent/trajectory.json.
 */
const SCHEMA = JSON.parse(readFileSync(path.resolve('test/fixtures/atif/trajectory.schema.json'), 'utf8')) as object;
const TASK = path.resolve('test/fixtures/bare-debian/write-greeting');
const HARNESSES = ['forge-agent', 'claude-code'];
const rollouts: Record<string, HarnessRolloutRecord> = {};

beforeAll(async () => {
  await harnessLayer('claude-code');
  for (const h of HARNESSES) rollouts[h] = (await runHarness(h, [TASK])).rollouts[0]!;
}, 900_000);

describe.each(HARNESSES)('the ATIF trajectory of a %s rollout', (harness) => {
  it("validates against Harbor's ATIF v1.7 schema and tells the episode: instruction, tool call, its result, final answer", () => {
    const r = rollouts[harness]!;
    expect(r.reward, explain(r)).toBe(1);
    const trajectory = JSON.parse(readFileSync(path.join(r.artifacts, 'agent', 'trajectory.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(SCHEMA);
    expect(validate(trajectory), JSON.stringify(validate.errors)).toBe(true);
    expect(trajectory).toMatchObject({ schema_version: 'ATIF-v1.7', session_id: expect.stringContaining('write-greeting'), agent: { name: harness } });
    const [user, act, done] = trajectory.steps;
    expect(user).toMatchObject({ step_id: 1, source: 'user', message: expect.stringContaining('greeting.txt') });
    expect(act.source).toBe('agent');
    expect(act.tool_calls).toHaveLength(1);
    expect(JSON.stringify(act.tool_calls[0].arguments)).toContain('hello from bare debian');
    expect(act.observation.results[0].source_call_id).toBe(act.tool_calls[0].tool_call_id);
    expect(done).toMatchObject({ source: 'agent', message: expect.stringContaining('reference solution') });
    expect(trajectory.steps.map((s: { step_id: number }) => s.step_id)).toEqual(trajectory.steps.map((_: unknown, i: number) => i + 1));
    const policyCalls = r.calls.filter((c) => c.label === 'policy').length;
    expect(trajectory.steps).toHaveLength(policyCalls + 1);
  });
});
