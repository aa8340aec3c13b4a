import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTasks } from '../../src/config/task.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';
import { imageRefs } from '../../src/trajectory/images.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, toolNamesCalled, type HarnessRolloutRecord } from '../helpers/harness-run.js';

/**
 * Real harnesses on browser tasks: Claude Code and Codex, their real binaries, get the rollout's env server
 * as an MCP server (http://127.0.0.1:7000/mcp inside the container, with the rollout's env token) and the
 * sim oracle answers with the MCP tool calls they show it; the screenshots come back as MCP image content
 * and are recorded as images in the calls.
 */
const SUITE = path.resolve('envs/browser-basic');
const TASKS = ['todo-app', 'settings-page'];
const OVERRIDES = { max_turns: 40, resources: { cpus: 1, memory_mb: 2048, pids: 1024 } };

beforeAll(async () => {
  const backend = new DockerBackend();
  await backend.check();
  const builder = new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA });
  for (const task of loadTasks(SUITE).filter((t) => TASKS.includes(t.id))) await builder.ensureTaskImage(task);
}, 1_800_000);

function checks(harness: string, prefix: string) {
  let rollouts: HarnessRolloutRecord[];
  beforeAll(async () => {
    await harnessLayer(harness);
    ({ rollouts } = await runHarness(
      harness,
      TASKS.map((t) => path.join(SUITE, t)),
      OVERRIDES,
    ));
  }, 1_200_000);

  it('scores 1 on each task, acting only through the env server’s MCP tools', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual([...TASKS].sort());
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      // Codex may send its first turn before its MCP servers are listed: the oracle then waits through its shell.
      const called = toolNamesCalled(r.calls).filter((name) => name !== 'exec_command');
      expect(toolNamesCalled(r.calls).length - called.length, explain(r)).toBeLessThanOrEqual(3);
      expect(called.length, explain(r)).toBeGreaterThan(2);
      for (const name of called) expect(name, explain(r)).toMatch(new RegExp(`^${prefix}browser_(click|type|key|scroll|navigate|action)$`));
    }
  });

  it('records the screenshots the harness was shown as images, one per tool result', () => {
    for (const r of rollouts) {
      const policy = r.calls.filter((c) => c.label === 'policy');
      const last = policy.at(-1)!;
      const images = imageRefs(last.request, last.protocol)?.images ?? [];
      // every MCP tool result before the final answer carried its screenshot (a shell wait carries none)
      const mcpCalls = toolNamesCalled(r.calls).filter((name) => name !== 'exec_command').length;
      expect(images.length, explain(r)).toBe(mcpCalls);
      for (const image of images) expect(image.url_or_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
}

describe('Claude Code drives browser tasks over MCP (sim:oracle)', () => checks('claude-code', 'mcp__browser__'));
describe('Codex drives browser tasks over MCP (sim:oracle)', () => checks('codex', ''));
