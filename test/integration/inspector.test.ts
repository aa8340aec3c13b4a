import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { LABEL_ROLLOUT } from '../../src/sandbox/labels.js';
import { RolloutTrajectoryBuilder } from '../../src/trajectory/builder.js';
import { fromRecordedCall } from '../../src/trajectory/trajectory-call.js';
import { openRunFolder, type RunFolder } from '../../src/inspector/run-folder.js';
import { startInspector, type Inspector } from '../../src/inspector/server.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

/**
 * The inspector end to end: real runs (claw-basic, forge-agent, sim:oracle, Docker) looked at in real
 * Chromium. OPENFORGE_SCREENSHOTS=1 writes the pictures in docs/inspector.md to docs/img/.
 */
const CLI = path.resolve('bin/openforge.js');
const TASK = path.resolve('envs/claw-basic/create-config-file');
const SHOTS = process.env.OPENFORGE_SCREENSHOTS === '1' ? path.resolve('docs/img') : undefined;
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
let folder: RunFolder;
let inspector: Inspector;
let runId: string;
let rolloutIds: string[];
/** The same task under sim:noisy:1: every rollout gives up at once (reward 0, one turn, no tool call). */
let noisyRunId: string;

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, name) });
}

function openforge(args: string[], input?: string) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input, timeout: 300_000 });
}

beforeAll(async () => {
  await workspaceImage();
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-inspector-'));
  const loaded = resolveRunConfig(
    { tasks: TASK, harness: 'forge-agent', model: { upstream: 'sim:oracle' }, rollouts_per_task: 2, concurrency: 2, output },
    path.join(output, 'run.yaml'),
  );
  const summary = await executeRun(loaded);
  expect(summary.tasks[0]!.rewards).toEqual([1, 1]);
  runId = summary.runId;
  const noisy = await executeRun(
    resolveRunConfig(
      { tasks: TASK, harness: 'forge-agent', model: { upstream: 'sim:noisy:1' }, rollouts_per_task: 2, concurrency: 2, output },
      path.join(output, 'run.yaml'),
    ),
  );
  expect(noisy.tasks[0]!.rewards).toEqual([0, 0]);
  noisyRunId = noisy.runId;
  folder = await openRunFolder(output);
  rolloutIds = (await folder.store.currentRollouts(runId)).map((r) => r.id);
  inspector = await startInspector({ folder });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await inspector?.close();
  await folder?.store.close();
});

/** The data points a chart on the page carries: label, side (paired bars) and value of each bar. */
function chartPoints(page: Page, key: string): Promise<string[][]> {
  return page
    .locator(`svg[data-chart="${key}"] g.point`)
    .evaluateAll((points) => points.map((p) => [p.getAttribute('data-label')!, p.getAttribute('data-side') ?? '', p.getAttribute('data-value')!]));
}

/**
 * Tables wider than the panel they sit in, and cells whose content is cut: each as "<table> <what>". A table
 * must end inside its section, panel or page, and the page must not scroll sideways.
 */
function overflowingTables(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) problems.push(`page ${document.documentElement.scrollWidth} px wide`);
    document.querySelectorAll('table').forEach((table, i) => {
      const name = table.getAttribute('data-testid') ?? `table ${i}`;
      const panel = table.parentElement!.closest('section, .panel, details, main')!;
      const [t, p] = [table.getBoundingClientRect(), panel.getBoundingClientRect()];
      if (t.right > p.right + 0.5) problems.push(`${name} ends at ${t.right}, its panel at ${p.right}`);
      table.querySelectorAll('td, th').forEach((cell) => {
        if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`${name}: a cell cut (${cell.textContent!.slice(0, 30)})`);
        if (cell.getBoundingClientRect().right > p.right + 0.5) problems.push(`${name}: a cell past the panel (${cell.textContent!.slice(0, 30)})`);
      });
    });
    return problems;
  });
}

describe('charts, the rollout timeline, the compare view and the layout', () => {
  it("charts the run's reward and behaviour per task", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${inspector.url}#/run/${encodeURIComponent(runId)}`);
    await expect.poll(() => chartPoints(page, 'reward')).toEqual([['create-config-file', '', '1']]);
    // the oracle runs the task's one solution step: two turns, one tool call, no error, nothing repeated
    expect(await chartPoints(page, 'turns')).toEqual([['create-config-file', '', '2']]);
    expect(await chartPoints(page, 'toolCalls')).toEqual([['create-config-file', '', '1']]);
    expect(await chartPoints(page, 'toolErrors')).toEqual([['create-config-file', '', '0']]);
    expect(await chartPoints(page, 'repeatedCalls')).toEqual([['create-config-file', '', '0']]);
    expect(await chartPoints(page, 'errorRecovery')).toEqual([['create-config-file', '', '']]);
    const behaviour = await fetch(`${inspector.origin}/api/runs/${encodeURIComponent(runId)}/behaviour`, {
      headers: { authorization: `Bearer ${inspector.token}` },
    });
    const { charts } = (await behaviour.json()) as { charts: { key: string }[] };
    expect(await page.locator('[data-testid="charts"] svg[data-chart]').count()).toBe(charts.length);
    await page.getByTestId('charts').scrollIntoViewIfNeeded();
    await shot(page, 'inspector-charts.png');

    await page.goto(`${inspector.url}#/run/${encodeURIComponent(noisyRunId)}`);
    await expect.poll(() => chartPoints(page, 'reward')).toEqual([['create-config-file', '', '0']]);
    expect(await chartPoints(page, 'turns')).toEqual([['create-config-file', '', '1']]);
    expect(await chartPoints(page, 'toolCalls')).toEqual([['create-config-file', '', '0']]);
    await page.close();
  }, 60_000);

  it('compares two runs as paired bars, with the flipped task linked to its rollouts', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${inspector.url}#/run/${encodeURIComponent(runId)}`);
    await page.getByTestId('compare-with').selectOption(noisyRunId);
    await page.getByTestId('compare').click();
    await expect
      .poll(() => chartPoints(page, 'reward'))
      .toEqual([
        ['create-config-file', 'a', '1'],
        ['create-config-file', 'b', '0'],
      ]);
    expect(await chartPoints(page, 'turns')).toEqual([
      ['create-config-file', 'a', '2'],
      ['create-config-file', 'b', '1'],
    ]);
    await shot(page, 'inspector-compare.png');
    const reward = page.locator('[data-testid="compare-overall"] tr[data-key="reward"] td');
    expect(await reward.allInnerTexts()).toEqual(['reward', '1.000', '0.000', '-1.000', '[-1.000, -1.000]']);
    const flipped = page.locator('[data-testid="flipped"] tr[data-task="create-config-file"]');
    expect((await flipped.locator('td').allInnerTexts()).slice(0, 3)).toEqual(['create-config-file', 'pass', 'fail']);
    await flipped.locator('td').nth(4).locator('a').first().click();
    await expect.poll(() => page.getByTestId('reward').innerText()).toBe('0');
    expect(page.url()).toContain(`#/rollout/${encodeURIComponent(`${noisyRunId}.create-config-file.0.1`)}`);
    await page.close();
  }, 60_000);

  it('draws a rollout timeline: its phases from phases_ms, each model call inside the agent phase, the tool run between them', async () => {
    const rollout = (await folder.store.getRollout(rolloutIds[0]!))!;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${inspector.url}#/rollout/${encodeURIComponent(rollout.id)}`);
    const marks = (kind: string) =>
      page.locator(`[data-testid="phase-timeline"] g.${kind}`).evaluateAll((gs) =>
        gs.map((g) => ({
          name: g.getAttribute('data-phase') ?? g.getAttribute('data-seq') ?? g.getAttribute('data-tools'),
          start: Number(g.getAttribute('data-start')),
          end: Number(g.getAttribute('data-end')),
        })),
      );
    await expect.poll(() => marks('call').then((m) => m.length)).toBe(2);
    const phases = await marks('phase');
    expect(phases.map((p) => p.name)).toEqual(['image', 'start', 'setup', 'agent', 'verify', 'collect', 'teardown']);
    for (const p of phases) expect(p.end - p.start).toBe(rollout.phases[p.name!]);
    const agent = phases.find((p) => p.name === 'agent')!;
    const [first, second] = await marks('call');
    for (const call of [first!, second!]) {
      expect(call.start).toBeGreaterThanOrEqual(agent.start);
      expect(call.end).toBeLessThanOrEqual(agent.end);
    }
    const [toolRun] = await marks('tool-run');
    expect(toolRun).toEqual({ name: 'bash', start: first!.end, end: second!.start });
    await shot(page, 'inspector-timeline.png');
    await page.close();
  }, 60_000);

  it('reads whole at 1280 and 1920 px: no table runs past its panel, no cell is cut', async () => {
    // each page, and what shows it has rendered (the page before it is still there until it has)
    const pages: [string, string][] = [
      ['#/', 'runs'],
      [`#/run/${encodeURIComponent(runId)}`, 'charts'],
      [`#/rollout/${encodeURIComponent(rolloutIds[0]!)}/call/1`, 'tokens'],
      [`#/compare/${encodeURIComponent(runId)}/${encodeURIComponent(noisyRunId)}`, 'compare-overall'],
    ];
    for (const width of [1280, 1920]) {
      const page = await browser.newPage({ viewport: { width, height: 1000 } });
      for (const [hash, shown] of pages) {
        await page.goto(`${inspector.url}${hash}`);
        await page.getByTestId(shown).waitFor();
        expect(await overflowingTables(page), `${hash} at ${width} px`).toEqual([]);
      }
      await page.close();
    }
  }, 120_000);
});

describe('the inspector on a finished run', () => {
  it('opens the run, a rollout, its calls in order, and a call whose tokens are coloured by their training mask', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(inspector.url);
    await page.getByRole('link', { name: runId }).click();
    await expect.poll(() => page.getByTestId('tasks').innerText()).toContain('create-config-file');
    expect(await page.getByTestId('tasks').innerText()).toMatch(/create-config-file\s+2\s+1 1\s+1\s+1\s+1\s+1/); // n, rewards, mean, pass@1, pass@2, pass^2
    await shot(page, 'inspector-run.png');

    const rolloutId = rolloutIds[0]!;
    await page.locator(`tr[data-rollout="${rolloutId}"]`).click();
    await expect.poll(() => page.locator('#timeline tr[data-seq]').count()).toBe(2);
    expect(await page.locator('#timeline tr[data-seq]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.seq))).toEqual(['1', '2']);
    expect(await page.locator('#timeline tr[data-seq="1"]').innerText()).toContain('bash(');
    expect(await page.getByTestId('artifacts').innerText()).toContain('verifier/reward.txt');

    await page.locator('#timeline tr[data-seq="2"]').click();
    await expect.poll(() => page.getByTestId('call-seq').textContent()).toBe('call 2');
    expect(await page.getByTestId('observations').innerText()).toContain('Exit code: 0');
    expect(await page.getByTestId('answer').innerText()).toContain('Done');

    // The colours must match the mask of the very sample the veRL export writes for this rollout.
    const calls = await folder.store.listCalls(rolloutId);
    const builder = new RolloutTrajectoryBuilder({
      runId,
      rolloutId,
      taskId: 'create-config-file',
      sampleIndex: 0,
      harness: 'forge-agent',
      reward: 1,
      simulated: true,
    });
    for (const c of calls) await builder.add(fromRecordedCall(c));
    const [sample] = (await builder.finish()).samples;
    const kinds = await page.locator('[data-testid="tokens"] .tok').evaluateAll((spans) => spans.map((s) => s.className.replace('tok ', '')));
    const expected = [...Array.from(sample!.prompt_ids, () => 'prompt'), ...Array.from(sample!.response_mask, (m) => (m === 1 ? 'model' : 'observation'))];
    expect(kinds).toEqual(expected);
    const colour = (kind: string) =>
      page
        .locator(`[data-testid="tokens"] .tok.${kind}`)
        .first()
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await colour('model')).toBe('rgb(201, 242, 208)');
    expect(await colour('observation')).toBe('rgb(214, 230, 255)');
    expect(await page.locator('[data-testid="tokens"] .tok.model').first().getAttribute('title')).toMatch(/mask 1 · logprob -?\d/);
    const modelText = await page.locator('[data-testid="tokens"] .tok.model').evaluateAll((spans) => spans.map((s) => s.textContent).join(''));
    expect(modelText).toContain('Done: ran the 1 step(s)'); // decoded with the sim tokenizer
    await page.locator('[data-testid="tokens"]').scrollIntoViewIfNeeded();
    await shot(page, 'inspector-call-tokens.png');
    await page.close();
  }, 60_000);

  it('shows a rollout whose artifacts are gone, and names unknown rollouts instead of failing', async () => {
    const rollout = (await folder.store.getRollout(rolloutIds[1]!))!;
    rmSync(path.join(folder.dir, runId, rollout.taskId, `${rollout.sampleIndex}-a${rollout.attempt}`), { recursive: true, force: true });
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/rollout/${encodeURIComponent(rollout.id)}`);
    await expect.poll(() => page.locator('#timeline tr[data-seq]').count()).toBe(2);
    expect(await page.getByTestId('artifacts').innerText()).toContain('No artifacts');
    await page.goto(`${inspector.url}#/rollout/no-such-rollout`);
    await expect.poll(() => page.getByTestId('error').textContent()).toContain('no rollout no-such-rollout');
    const res = await fetch(`${inspector.origin}/api/rollouts/${encodeURIComponent(rollout.id)}/file?path=../../../../etc/passwd`, {
      headers: { authorization: `Bearer ${inspector.token}` },
    });
    expect(res.status).toBe(404);
    await page.close();
  }, 60_000);

  it('replays a finished rollout from the page and finds it identical', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${inspector.url}#/rollout/${encodeURIComponent(rolloutIds[0]!)}`);
    await page.getByTestId('replay').click();
    await expect.poll(() => page.getByTestId('replay-verdict').textContent(), { timeout: 240_000, interval: 1000 }).toBe('identical');
    const children = await folder.store.childrenOf(rolloutIds[0]!);
    expect(children.map((c) => [c.parent?.kind, c.reward])).toEqual([['replay', 1]]);
    await shot(page, 'inspector-replay.png');
    await page.close();
  }, 300_000);

  it('forks at call 2 with an edited answer: a bad answer is refused, a good one makes a new rollout linked to the old', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const parentId = rolloutIds[0]!;
    await page.goto(`${inspector.url}#/rollout/${encodeURIComponent(parentId)}/call/2`);
    await page.getByTestId('fork').locator('summary').click();
    const answer = page.getByTestId('fork-answer');
    expect(JSON.parse(await answer.inputValue()).content).toContain('Done');
    await answer.fill('{"content": null, "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": "rm -rf /"}}]}');
    await page.getByTestId('fork-run').click();
    await expect.poll(() => page.getByTestId('fork-error').textContent()).toContain('arguments are not valid JSON text');

    // Call 2 now deletes the config the first call wrote; the oracle then says it is done: reward 0.
    const edited = {
      content: null,
      tool_calls: [{ type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: 'rm -f /workspace/config/service.ini' }) } }],
    };
    await answer.fill(JSON.stringify(edited));
    // The form offers the upstream choice, a real server's URL among them, and names one that is neither.
    expect(await page.getByTestId('fork').innerText()).toContain('http://127.0.0.1:8000/v1');
    await page.getByTestId('fork-upstream').fill('localhost:8000');
    await page.getByTestId('fork-run').click();
    await expect
      .poll(() => page.getByTestId('fork-error').textContent())
      .toContain('"localhost:8000" to continue the fork with is neither a sim: spec nor an http(s) URL');
    await page.getByTestId('fork-upstream').fill('');
    await shot(page, 'inspector-fork.png');
    await page.getByTestId('fork-run').click();
    const link = page.getByTestId('fork-link');
    await link.waitFor({ timeout: 240_000 });
    const forkId = (await link.textContent())!;
    await link.click();
    await expect.poll(() => page.getByTestId('parent').innerText()).toBe(`fork of ${parentId} at call 2`);
    await expect.poll(() => page.locator('#timeline tr[data-seq]').count()).toBe(3);
    expect(await page.getByTestId('reward').innerText()).toBe('0');
    await page.locator('#timeline tr[data-seq="2"]').click();
    await expect.poll(() => page.getByTestId('answer').innerText()).toContain('rm -f /workspace/config/service.ini');

    const fork = (await folder.store.getRollout(forkId))!;
    expect(fork.parent).toEqual({ rolloutId: parentId, kind: 'fork', atSeq: 2 });
    const [original, forked] = [await folder.store.listCalls(parentId), await folder.store.listCalls(forkId)];
    expect(forked[0]!.completionTokenIds).toEqual(original[0]!.completionTokenIds); // call 1 replayed as recorded
    await page.close();
  }, 300_000);

  it('opened on a rollout that is not stored yet (openforge debug prints its link early), shows it once it is', async () => {
    const page = await browser.newPage();
    const id = `${runId}.late-task.0.1`;
    await page.goto(`${inspector.url}#/rollout/${encodeURIComponent(id)}`);
    await expect.poll(() => page.getByTestId('error').textContent()).toContain(`no rollout ${id}`);
    await folder.store.addRollout({ id, runId, taskId: 'late-task', sampleIndex: 0, attempt: 1, harness: 'forge-agent' });
    await expect.poll(() => page.getByTestId('rollout-status').textContent(), { timeout: 10_000 }).toBe('pending');
    await page.close();
  });
});

describe('openforge debug, shell and the live view', () => {
  let debug: ChildProcess | undefined;
  afterAll(() => {
    if (debug && debug.exitCode === null) debug.kill('SIGKILL');
  });

  it('watches a running rollout gain calls live, opens a shell in its kept container, and removes it on Ctrl-C', async () => {
    const suite = makeSuite([
      {
        id: 'slow-steps',
        solve:
          '#!/bin/bash\n# step: one\nsleep 2; echo a > /workspace/a\n# step: two\nsleep 2; echo b > /workspace/b\n# step: three\nsleep 2; echo done > /workspace/done.txt\n',
      },
    ]);
    const output = mkdtempSync(path.join(os.tmpdir(), 'of-debug-'));
    debug = spawn(process.execPath, [CLI, 'debug', path.join(suite, 'slow-steps'), '-o', output], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    debug.stdout!.on('data', (d) => (stdout += String(d)));
    debug.stderr!.on('data', () => undefined);
    await expect.poll(() => /rollout (\S+): (http\S+)/.exec(stdout), { timeout: 120_000, interval: 200 }).not.toBeNull();
    const [, rolloutId, url] = /rollout (\S+): (http\S+)/.exec(stdout)!;

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url!);
    const seen = new Set<number>();
    const rows = () => page.locator('#timeline tr[data-seq]').count();
    // Without reloading, the page goes from a running rollout with fewer calls to the finished one with all four.
    await expect
      .poll(
        async () => {
          const status = await page
            .getByTestId('rollout-status')
            .textContent()
            .catch(() => '');
          if (status === 'running') seen.add(await rows());
          return status;
        },
        { timeout: 180_000, interval: 250 },
      )
      .toBe('finished');
    expect(await rows()).toBe(4);
    expect([...seen].some((n) => n >= 1 && n < 4)).toBe(true);
    await shot(page, 'inspector-live.png');
    await page.close();

    await expect.poll(() => stdout, { timeout: 60_000 }).toContain(`container kept: openforge shell ${rolloutId}`);
    const shell = openforge(['shell', rolloutId!], 'cat /workspace/done.txt /workspace/a\nexit 0\n');
    expect(shell.stdout).toBe('done\na\n');
    expect(shell.status).toBe(0);

    debug.kill('SIGINT');
    await new Promise((resolve) => debug!.once('exit', resolve));
    const { backend } = await workspaceImage();
    expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_ROLLOUT}=${rolloutId}`] } })).toHaveLength(0);
    const gone = openforge(['shell', rolloutId!, '-c', 'true']);
    expect(gone.status).toBe(2);
    expect(gone.stderr).toContain(`no running container for rollout ${rolloutId}: it is gone`);
  }, 400_000);
});

describe('bad input to the CLI commands', () => {
  it('names an unknown rollout, a folder that is not a run, and an answer file that is missing', () => {
    const notRun = mkdtempSync(path.join(os.tmpdir(), 'of-notrun-'));
    const inspect = openforge(['inspect', notRun]);
    expect(inspect.status).toBe(2);
    expect(inspect.stderr).toContain(`has no ${STORE_FILE}: it is not an OpenForge run folder`);
    const replay = openforge(['replay', 'run-x.task.0.1', '--dir', folder.dir]);
    expect(replay.status).toBe(2);
    expect(replay.stderr).toContain('no rollout "run-x.task.0.1"');
    const fork = openforge(['fork', rolloutIds[0]!, '--at', '2', '--answer', path.join(notRun, 'missing.json'), '--dir', folder.dir]);
    expect(fork.status).toBe(2);
    expect(fork.stderr).toContain('missing.json does not exist');
    expect(existsSync(path.join(notRun, STORE_FILE))).toBe(false); // inspect did not create a store there
  });
});
