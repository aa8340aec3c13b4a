import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvToolsOnly, expectScreenshotPerToolResult } from '../helpers/gui-mcp.js';
import { harnessLayer } from '../helpers/harness.js';
import { explain, runHarness, type HarnessRolloutRecord } from '../helpers/harness-run.js';
import { buildTaskImages } from '../helpers/task-images.js';

/**
 * Real harnesses on desktop tasks: Claude Code and Codex (Qwen Code and opencode on one task), their real binaries, get the rollout's desktop env
 * server as an MCP server and the sim oracle answers with the `desktop_*` MCP tool calls they show it (the
 * task's reference actions); the screenshots of the whole screen come back as MCP image content, are recorded
 * as images in the calls and reach the exported veRL samples as `multi_modal_data`. One task per app: Calc,
 * Writer, the file manager. The file manager's reference starts with two bad actions (a click off the screen, a
 * key X does not have): each comes back as the observation's last_action_error, with its screenshot, and the
 * episode goes on.
 */
const CLI = path.resolve('bin/openforge.js');
const SUITE = path.resolve('envs/desktop-basic');
const TASKS = ['calc-set-cell', 'writer-append-closing', 'files-rename'];
const WITH_BAD_ACTIONS = 'files-rename';
const BAD_ACTIONS = [
  { type: 'click', x: 5000, y: 5000 },
  { type: 'key', keys: ['NoSuchKey'] },
];
const OVERRIDES = { max_turns: 40, resources: { cpus: 1, memory_mb: 2048, pids: 2048 } };

/** The tasks, the one with bad actions a copy (the shared kit beside it: its solution and tests link into it). */
function taskDirs(tasks: string[]): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-desktop-bad-'));
  for (const name of ['_kit', WITH_BAD_ACTIONS]) cpSync(path.join(SUITE, name), path.join(dir, name), { recursive: true, verbatimSymlinks: true });
  const actions = path.join(dir, WITH_BAD_ACTIONS, 'solution', 'actions.json');
  writeFileSync(actions, JSON.stringify([...BAD_ACTIONS, ...JSON.parse(readFileSync(actions, 'utf8'))], null, 1));
  return tasks.map((t) => path.join(t === WITH_BAD_ACTIONS ? dir : SUITE, t));
}

beforeAll(async () => {
  await buildTaskImages(SUITE, TASKS);
}, 1_800_000);

interface VerlRow {
  rollout_id: string;
  multi_modal_data: { image: { image: string; sha256: string | null }[] } | null;
}

function checks(harness: string, prefix: string, tasks = TASKS) {
  let rollouts: HarnessRolloutRecord[];
  let output: string;
  let runId: string;
  beforeAll(async () => {
    await harnessLayer(harness);
    let summary;
    ({ rollouts, output, summary } = await runHarness(harness, taskDirs(tasks), OVERRIDES));
    runId = summary.runId;
  }, 1_200_000);

  it('scores 1 on each task, acting only through the desktop env server’s MCP tools', () => {
    expect(rollouts.map((r) => r.taskId).sort()).toEqual([...tasks].sort());
    for (const r of rollouts) {
      expect(r.reward, explain(r)).toBe(1);
      expect(r.errorType, explain(r)).toBeNull();
      expectEnvToolsOnly(r, prefix, ['desktop_click', 'desktop_type', 'desktop_key', 'desktop_scroll', 'desktop_drag', 'desktop_action']);
    }
  });

  it('records the screenshots the harness was shown as images, one per tool result', () => {
    for (const r of rollouts) expectScreenshotPerToolResult(r);
  });

  it('gets bad actions back as last_action_error and goes on', () => {
    const r = rollouts.find((x) => x.taskId === WITH_BAD_ACTIONS)!;
    const policy = r.calls.filter((c) => c.label === 'policy');
    const shown = JSON.stringify(policy.at(-1)!.request);
    expect(shown, explain(r)).toMatch(/Error: the action failed \(out_of_range: /);
    expect(shown, explain(r)).toMatch(/Error: the action failed \(unknown_key: /);
    expect(r.reward, explain(r)).toBe(1);
  });

  it('exports veRL samples whose multi_modal_data carries those screenshots (PNG bytes of the whole screen)', () => {
    const file = path.join(output, 'verl.jsonl');
    const res = spawnSync(process.execPath, [CLI, 'export', output, '--run', runId, '--format', 'verl', '--images', 'inline', '--out', file], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(res.status, res.stderr).toBe(0);
    const rows = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as VerlRow);
    for (const r of rollouts) {
      const rollout = r.calls[0]!.rolloutId;
      const shown = rows.filter((row) => row.rollout_id === rollout).flatMap((row) => row.multi_modal_data?.image ?? []);
      expect(shown.length, explain(r)).toBeGreaterThan(2);
      for (const image of shown) {
        const png = Buffer.from(image.image.replace(/^data:image\/png;base64,/, ''), 'base64');
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
        // IHDR width × height: the desktop's 1280×800 screen
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 800]);
      }
    }
  });
}

describe('Claude Code drives desktop tasks over MCP (sim:oracle)', () => checks('claude-code', 'mcp__desktop__'));
describe('Codex drives desktop tasks over MCP (sim:oracle)', () => checks('codex', ''));
// Qwen Code and opencode on the file manager task only (each run of the suite with them: docs/desktop.md).
describe('Qwen Code drives a desktop task over MCP (sim:oracle)', () => checks('qwen-code', 'mcp__desktop__', [WITH_BAD_ACTIONS]));
describe('opencode drives a desktop task over MCP (sim:oracle)', () => checks('opencode', 'desktop_', [WITH_BAD_ACTIONS]));
