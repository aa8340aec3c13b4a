import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../src/rollout/run.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { Store } from '../../src/store/store.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

/** These tests drive the built CLI (`npm run build`, run by `npm test` first) as a user would. */
const CLI = path.resolve('bin/openforge.js');

function openforge(args: string[], timeout = 300_000) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout });
}

function writeYaml(dir: string, body: string): string {
  const file = path.join(dir, 'run.yaml');
  writeFileSync(file, body);
  return file;
}

beforeAll(async () => {
  await workspaceImage();
});

describe('commands load on demand', () => {
  it('lists every command in the help, runs one whose module alone is loaded, and refuses an unknown one', () => {
    const help = openforge(['--help']);
    expect(help.status).toBe(0);
    for (const name of [
      'run',
      'images',
      'tasks',
      'sim',
      'reap',
      'proxy',
      'serve',
      'export',
      'stats',
      'inspect',
      'debug',
      'shell',
      'replay',
      'fork',
      'k8s',
      'promote',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
    expect(openforge(['--version']).stdout).toBe('0.1.0\n');
    const stats = openforge(['stats', '--help']);
    expect(stats.status).toBe(0);
    expect(stats.stdout).toContain('Usage: openforge stats');
    const typo = openforge(['stast']);
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain("unknown command 'stast'");
    expect(typo.stderr).toContain('stats'); // commander's suggestion: every command was loaded to offer it
  });
});

describe('bad input gets a clear error', () => {
  it('names the file, the key and the allowed values of an invalid run.yaml', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-cli-'));
    const file = writeYaml(dir, 'tasks: .\nnetwork: internet\nconcurrency: zero\nbogus: 1\n');
    const res = openforge(['run', file]);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(`${file}: network:`);
    expect(res.stderr).toMatch(/none.*proxy-only.*public/);
    expect(res.stderr).toContain(`${file}: concurrency:`);
    expect(res.stderr).toMatch(/bogus/);
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace for user errors
  });

  it('names the file and key of an invalid task.toml', () => {
    const suite = makeSuite([{ id: 'bad', toml: '[agent]\ntimeout_sec = "soon"\n' }]);
    const res = openforge(['tasks', 'list', suite]);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(path.join(suite, 'bad', 'task.toml'));
    expect(res.stderr).toContain('agent.timeout_sec');
  });

  it('says how to start Docker when no engine answers', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-cli-'));
    const suite = makeSuite([{ id: 'x' }]);
    const file = writeYaml(dir, `tasks: ${suite}\nharness: oracle\nnetwork: none\n`);
    const res = spawnSync(process.execPath, [CLI, 'run', file], { encoding: 'utf8', env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock' } });
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/cannot reach the Docker engine/);
    expect(res.stderr).toMatch(/dockerd|npm run setup/);
  });

  it('refuses --images with a format whose rows do not carry images', () => {
    const res = spawnSync(process.execPath, [CLI, 'export', os.tmpdir(), '--format', 'sft', '--images', 'files'], { encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--images applies to --format verl');
    expect(res.stderr).toContain('drop --images');
  });

  it('refuses an extra CA bundle that is missing, a folder or not PEM before starting anything', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-cli-'));
    const suite = makeSuite([{ id: 'x' }]);
    const file = writeYaml(dir, `tasks: ${suite}\nharness: oracle\nnetwork: none\noutput: ${path.join(dir, 'runs')}\n`);
    const notPem = path.join(dir, 'ca.txt');
    writeFileSync(notPem, 'not a certificate\n');
    const cases: [string[], string][] = [
      [['run', '--extra-ca', path.join(dir, 'missing.pem'), file], 'does not exist'],
      [['images', 'node', '--extra-ca', dir], 'is a folder, not a file'],
      [['images', 'build', '--extra-ca', notPem], 'holds no PEM certificate'],
    ];
    for (const [args, why] of cases) {
      // no engine needed to be told: the bundle is checked first
      const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock' } });
      expect(res.status).toBe(2);
      expect(res.stderr).toContain(`extra CA bundle ${args[args.indexOf('--extra-ca') + 1]} ${why}`);
      expect(res.stderr).toContain('OPENFORGE_EXTRA_CA');
    }
    expect(existsSync(path.join(dir, 'runs'))).toBe(false); // the run made nothing
    // an empty file means no bundle, as inside the builds: the next thing checked is the engine
    const empty = spawnSync(process.execPath, [CLI, 'images', 'node', '--extra-ca', '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock' },
    });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/cannot reach the Docker engine/);
  });

  it('ends quietly when the reader of its output goes away (`openforge … | head`)', async () => {
    const child = spawn(process.execPath, [CLI, 'tasks', 'list', path.resolve('envs/claw-basic')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the pipe's reader is gone before the first line is written
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('openforge tasks validate', () => {
  it('passes claw-basic: every oracle scores 1 and doing nothing scores 0', () => {
    const res = openforge(['tasks', 'validate', 'envs/claw-basic', '--json'], 600_000);
    expect(res.status, res.stderr).toBe(0);
    const results = JSON.parse(res.stdout) as { taskId: string; ok: boolean; oracleReward: number; nopReward: number }[];
    expect(results.length).toBeGreaterThanOrEqual(12);
    for (const r of results) expect(r).toMatchObject({ ok: true, oracleReward: 1, nopReward: 0 });
  }, 600_000);

  it('fails a task whose grader passes when nothing was done', () => {
    const suite = makeSuite([{ id: 'lenient', test: '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n' }]);
    const res = openforge(['tasks', 'validate', suite]);
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/FAIL\s+lenient.*doing nothing scored 1/);
  }, 300_000);
});

describe('resume after the orchestrator is SIGKILLed', () => {
  it('finishes with no duplicate rollout and no leftover container or network', async () => {
    const tasks = Array.from({ length: 6 }, (_, i) => ({
      id: `slow-${i}`,
      solve: '#!/bin/bash\n# step: work\nsleep 2\n\n# step: finish\necho done > /workspace/done.txt\n',
    }));
    const suite = makeSuite(tasks);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-resume-'));
    const file = writeYaml(dir, `tasks: ${suite}\nharness: forge-agent\nmodel:\n  upstream: sim:oracle\nrollouts_per_task: 2\nconcurrency: 2\noutput: out\n`);

    const child = spawn(process.execPath, [CLI, 'run', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if ((stderr.match(/#\d: reward/g) ?? []).length >= 3) resolve();
      });
      child.on('exit', () => reject(new Error(`run ended before it could be killed:\n${stderr}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const runId = /run (run-\S+):/.exec(stderr)![1]!;
    const out = path.join(dir, 'out');
    const store1 = await Store.open(path.join(out, STORE_FILE));
    const finishedBefore = (await store1.currentRollouts(runId)).filter((r) => r.status === 'finished');
    await store1.close();
    expect(finishedBefore.length).toBeGreaterThanOrEqual(3);

    const res = openforge(['run', file, '--json']);
    expect(res.status, res.stderr).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary.runId).toBe(runId);
    expect(res.stderr).toMatch(/resuming: \d+ finished rollouts kept/);
    expect(summary.tasks.flatMap((t: { rewards: number[] }) => t.rewards)).toEqual(Array(12).fill(1));

    const store = await Store.open(path.join(out, STORE_FILE));
    try {
      const current = await store.currentRollouts(runId);
      expect(current).toHaveLength(12);
      for (const before of finishedBefore) {
        const now = current.find((r) => r.taskId === before.taskId && r.sampleIndex === before.sampleIndex)!;
        expect(now.id).toBe(before.id); // kept, not run again
      }
    } finally {
      await store.close();
    }
    const { backend } = await workspaceImage();
    expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } })).toHaveLength(0);
    expect(await backend.docker.listNetworks({ filters: { label: [`${LABEL_RUN}=${runId}`] } })).toHaveLength(0);
  }, 600_000);
});

describe('Ctrl-C', () => {
  it('stops at once, removes the containers, and a re-run resumes the interrupted run', async () => {
    const tasks = Array.from({ length: 4 }, (_, i) => ({
      id: `long-${i}`,
      solve: '#!/bin/bash\n# step: work\nsleep 3\n\n# step: finish\necho done > /workspace/done.txt\n',
    }));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-sigint-'));
    const file = writeYaml(dir, `tasks: ${makeSuite(tasks)}\nmodel:\n  upstream: sim:oracle\nrollouts_per_task: 2\nconcurrency: 2\noutput: out\n`);
    const child = spawn(process.execPath, [CLI, 'run', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/#\d: reward/.test(stderr)) resolve();
      });
      child.on('exit', () => reject(new Error(`run ended before it could be interrupted:\n${stderr}`)));
    });
    const interruptedAt = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(130);
    expect(Date.now() - interruptedAt).toBeLessThan(60_000); // no waiting for agent or verifier timeouts (a busy engine can take a while to remove containers)
    const runId = /run (run-\S+):/.exec(stderr)![1]!;
    const { backend } = await workspaceImage();
    expect(await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } })).toHaveLength(0);
    const store = await Store.open(path.join(dir, 'out', STORE_FILE));
    expect((await store.getRun(runId))?.status).toBe('interrupted');
    await store.close();

    const res = openforge(['run', file, '--json']);
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).runId).toBe(runId);
    expect(JSON.parse(res.stdout).tasks.flatMap((t: { rewards: number[] }) => t.rewards)).toEqual(Array(8).fill(1));
  }, 300_000);
});
