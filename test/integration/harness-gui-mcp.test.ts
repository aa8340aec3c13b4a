import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvToolsOnly, expectScreenshotPerToolResult } from '../helpers/gui-mcp.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';
import { buildTaskImages } from '../helpers/task-images.js';

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
  await buildTaskImages(SUITE, TASKS);
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
      expectEnvToolsOnly(r, prefix, ['browser_click', 'browser_type', 'browser_key', 'browser_scroll', 'browser_navigate', 'browser_action']);
    }
  });

  it('records the screenshots the harness was shown as images, one per tool result', () => {
    for (const r of rollouts) expectScreenshotPerToolResult(r);
  });
}

describe('Claude Code drives browser tasks over MCP (sim:oracle)', () => checks('claude-code', 'mcp__browser__'));
describe('Codex drives browser tasks over MCP (sim:oracle)', () => checks('codex', ''));
