#!/usr/bin/env node
// Rollout throughput and container start latency, each next to a baseline measured in the same run.
//   node scripts/bench/rollouts.mjs [--suite envs/claw-basic] [--levels 1,2,4,8] [--per-task 1] [--starts 10]
//     [--warm-pools 0,c]   (each level with each warm_pool size; `c` = the level's concurrency)
//     [--harnesses forge-agent,qwen-code,openclaw,claude-code,codex] [--harness-tasks a,b] [--harness-concurrency 2]
//     [--alt-dist DIR] [--repeat N]   (another build, e.g. a worktree of an earlier commit, alternating with this one)
//     [--runtimes default,runsc]   (each level under each OCI runtime: run.yaml's sandbox.runtime; `default`: the engine's)
// --harnesses adds per-harness figures (start → first model call, calls per rollout, rollouts/min) from one
// run per harness over the same tasks; --starts 0 --levels '' measures only those.
// Needs `npm run build` and the images (`npm run setup`). Prints a table and a JSON line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DockerBackend } from '../../dist/sandbox/docker/backend.js';
import { ImageBuilder } from '../../dist/sandbox/docker/images.js';
import { WarmPool } from '../../dist/sandbox/warm-pool.js';
import { measureHarnesses, printHarnessTable } from './harness-figures.mjs';
import { benchArgs } from './bench-args.mjs';

const { values } = benchArgs(import.meta.url, {
  options: {
    suite: { type: 'string', default: 'envs/claw-basic' },
    levels: { type: 'string', default: '1,2,4,8' },
    'per-task': { type: 'string', default: '1' },
    starts: { type: 'string', default: '10' },
    'warm-pools': { type: 'string', default: '0,c' },
    harness: { type: 'string', default: 'forge-agent' },
    harnesses: { type: 'string', default: '' },
    'harness-tasks': { type: 'string', default: '' },
    'harness-concurrency': { type: 'string', default: '2' },
    'alt-dist': { type: 'string' },
    runtimes: { type: 'string', default: 'default' },
    repeat: { type: 'string', default: '1' },
  },
});

// The build measured, and with --alt-dist DIR another one (e.g. a git worktree of an earlier commit, built,
// its node_modules resolvable), run alternately at each level so both see the same machine.
const loadBuild = async (name, dist) => ({
  name,
  resolveRunConfig: (await import(pathToFileURL(path.join(dist, 'config/run.js')).href)).resolveRunConfig,
  executeRun: (await import(pathToFileURL(path.join(dist, 'rollout/run.js')).href)).executeRun,
});
const builds = [await loadBuild('this', path.resolve(import.meta.dirname, '../../dist'))];
if (values['alt-dist']) builds.push(await loadBuild('alt', path.resolve(values['alt-dist'], 'dist')));
/** CPU time the whole machine spent busy (all cores, in seconds): containers and engine included. */
const machineBusySec = () => {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const backend = new DockerBackend();
await backend.check();
const images = new ImageBuilder(backend.docker);
const base = await images.ensureBase();
const workspace = await images.ensureWorkspace();

// 1. Container start: `docker run --rm <base> true` (baseline) vs OpenForge create → exec-ready.
const starts = Number(values.starts);
const baseline = [];
for (let i = 0; i < starts; i++) {
  const t = performance.now();
  const r = spawnSync('docker', ['run', '--rm', base, 'true']);
  if (r.status !== 0) throw new Error(`docker run failed: ${r.stderr}`);
  baseline.push(performance.now() - t);
}
const ready = [];
for (let i = 0; i < starts; i++) {
  const t = performance.now();
  const box = await backend.create({
    runId: `bench-${process.pid}`,
    rolloutId: `start-${i}`,
    image: workspace,
    workdir: '/workspace',
    resources: { cpus: 1, memoryMb: 1024, pids: 512 },
    network: { mode: 'none' },
    lifetimeSec: 120,
  });
  ready.push(performance.now() - t);
  await box.remove();
}

// The same start through a warm pool: the container was started while the rollout ahead ran (3 s here).
const warmReady = [];
for (let i = 0; i < starts; i++) {
  const pool = new WarmPool(backend);
  const spec = (rolloutId) => ({
    runId: `bench-${process.pid}`,
    rolloutId,
    image: workspace,
    workdir: '/workspace',
    resources: { cpus: 1, memoryMb: 1024, pids: 512 },
    network: { mode: 'none' },
    lifetimeSec: 120,
  });
  pool.warm(spec('ahead'));
  await new Promise((r) => setTimeout(r, 3000));
  const t = performance.now();
  const box = await pool.create(spec(`warm-start-${i}`));
  warmReady.push(performance.now() - t);
  await box.remove();
  await pool.close();
}

// 2. Rollouts per minute for the suite under the sim oracle at each concurrency level.
const levels = values.levels.split(',').filter(Boolean).map(Number);
const throughput = [];
const warmPools = values['warm-pools'].split(',').filter(Boolean);
const runtimes = values.runtimes.split(',').filter(Boolean);
const variants = builds.flatMap((build) => runtimes.map((runtime) => ({ build, runtime })));
for (const c of levels) {
  for (const w of warmPools) {
    for (let round = 0; round < Number(values.repeat); round++) {
      for (const { build, runtime } of round % 2 ? [...variants].reverse() : variants) {
        const warm = w === 'c' ? c : Number(w);
        const output = mkdtempSync(path.join(os.tmpdir(), 'of-bench-'));
        const loaded = build.resolveRunConfig(
          {
            tasks: path.resolve(values.suite),
            harness: values.harness,
            model: { upstream: 'sim:oracle' },
            rollouts_per_task: Number(values['per-task']),
            concurrency: c,
            warm_pool: warm,
            output,
            ...(runtime === 'default' ? {} : { sandbox: { runtime } }),
          },
          path.join(output, 'run.yaml'),
        );
        const busyBefore = machineBusySec();
        const s = await build.executeRun(loaded);
        const cpuPerRollout = (machineBusySec() - busyBefore) / s.rollouts;
        const failed = s.rollouts - s.tasks.reduce((n, t) => n + t.passes, 0);
        throughput.push({
          build: build.name,
          runtime,
          concurrency: c,
          warmPool: warm,
          rollouts: s.rollouts,
          wallSec: s.wallTimeSec,
          perMinute: s.rolloutsPerMinute,
          cpuPerRollout,
          failed,
        });
        rmSync(output, { recursive: true, force: true });
      }
    }
  }
}

// 3. Per-harness figures, each harness over the same tasks (forge-agent first when listed).
const harnessNames = values.harnesses.split(',').filter(Boolean);
const harnessTasks = values['harness-tasks'] ? values['harness-tasks'].split(',').map((t) => path.resolve(values.suite, t)) : [path.resolve(values.suite)];
const harnessRows =
  harnessNames.length === 0
    ? []
    : await measureHarnesses({
        harnesses: harnessNames,
        tasks: harnessTasks,
        concurrency: Number(values['harness-concurrency']),
        extraCaFile: process.env.OPENFORGE_EXTRA_CA,
      });

const result = {
  machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
  start: {
    baselineDockerRunMs: median(baseline),
    readyMs: median(ready),
    ratio: median(ready) / median(baseline),
    warmReadyMs: median(warmReady),
    warmRatio: median(warmReady) / median(baseline),
  },
  throughput,
  harnesses: harnessRows,
};
if (starts > 0) {
  console.log(
    `container start (median of ${starts}): docker run --rm base true = ${result.start.baselineDockerRunMs.toFixed(0)} ms · openforge create→exec-ready = ${result.start.readyMs.toFixed(0)} ms · ratio ${result.start.ratio.toFixed(2)}× (target ≤ 1.5×)`,
  );
  console.log(`  from the warm pool = ${result.start.warmReadyMs.toFixed(1)} ms · ratio ${result.start.warmRatio.toFixed(3)}× (target ≤ 0.2×)`);
}
if (levels.length > 0)
  console.log(
    `harness ${values.harness}, sim:oracle, ${values.suite}:\nbuild  runtime  concurrency  warm pool  rollouts  wall s  rollouts/min  machine CPU s/rollout  not passed`,
  );
for (const t of throughput)
  console.log(
    `${t.build.padEnd(5)}  ${t.runtime.padEnd(7)}  ${String(t.concurrency).padStart(11)}  ${String(t.warmPool).padStart(9)}  ${String(t.rollouts).padStart(8)}  ${t.wallSec.toFixed(1).padStart(6)}  ${t.perMinute.toFixed(1).padStart(12)}  ${t.cpuPerRollout.toFixed(2).padStart(21)}  ${String(t.failed).padStart(10)}`,
  );
if (harnessRows.length > 0) printHarnessTable(harnessRows, values['harness-tasks'] || values.suite);
console.log(JSON.stringify(result));
