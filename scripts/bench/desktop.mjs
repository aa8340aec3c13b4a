#!/usr/bin/env node
// Desktop env step latency (xdotool action + X damage settle + X screenshot, through POST /step) against a raw
// `xdotool` action followed by X screenshots (GetImage, polled until the screen shows the change, then PNG)
// of the same change, both inside the same container in the same run, interleaved; and container start to
// first observation (create + start-desktop-env + GET /observation).
//   node scripts/bench/desktop.mjs [--steps 60] [--starts 3]
// Needs `npm run build` and Docker; builds the desktop image if missing. Prints a table, the ratio, and a JSON line.
import { loadavg } from 'node:os';
import { DockerBackend } from '../../dist/sandbox/docker/backend.js';
import { ImageBuilder } from '../../dist/sandbox/docker/images.js';
import { benchArgs } from './bench-args.mjs';

const { values } = benchArgs(import.meta.url, { options: { steps: { type: 'string', default: '60' }, starts: { type: 'string', default: '3' } } });

// Runs inside the container with the image's Node, the env server's own X module for the baseline.
const IN_CONTAINER = `
import { execFile } from 'node:child_process';
import { XDisplay, encodePng } from '/opt/openforge/desktop/app/in-container/desktop-env/x-display.js';
const steps = Number(process.argv[2]);
const post = async (route, body) => {
  const res = await fetch('http://127.0.0.1:7000' + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(route + ' ' + res.status + ' ' + (await res.text()));
  return res.json();
};
const xdotool = (...args) => new Promise((resolve, reject) => execFile('xdotool', args, (err) => (err ? reject(err) : resolve())));
const first = await post('/reset', { launch: ['mousepad /tmp/bench.txt'], wait_for_window: 'bench.txt', timeout_ms: 120000 });
if (first.last_action_error) throw new Error(JSON.stringify(first.last_action_error));
const x = await XDisplay.connect(':99');
const time = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };
// The raw baseline: the same keystroke with xdotool, then the screen read until it differs from before it, then PNG.
const rawStep = async (ch) => {
  const before = await x.raw();
  await xdotool('type', '--delay', '4', '--', ch);
  for (let i = 0; ; i++) {
    const now = await x.raw();
    if (!now.equals(before)) { encodePng(now, x.width, x.height); return; }
    if (i > 400) throw new Error('the raw keystroke changed nothing on the screen');
  }
};
for (let i = 0; i < 5; i++) { await rawStep('w'); await post('/step', { action: { type: 'type', text: 'w' } }); } // warm-up
const raw = [], step = [], server = [];
for (let i = 0; i < steps; i++) {
  const ch = String.fromCharCode(97 + (i % 26));
  raw.push(await time(() => rawStep(ch)));
  let obs;
  step.push(await time(async () => { obs = await post('/step', { action: { type: 'type', text: ch } }); }));
  if (obs.last_action_error) throw new Error(JSON.stringify(obs.last_action_error));
  server.push(obs.timings);
  if (i % 20 === 19) { await post('/step', { action: { type: 'key', keys: ['Return'] } }); }
}
x.close();
console.log(JSON.stringify({ raw, step, server }));
`;

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const backend = new DockerBackend();
await backend.check();
const image = await new ImageBuilder(backend.docker, {
  extraCaFile: process.env.OPENFORGE_EXTRA_CA,
  onLog: (l) => process.stderr.write(`${l}\n`),
}).ensureDesktop();
const runId = `bench-desktop-${process.pid}`;
const network = await backend.prepareNetwork(runId, 'none');
const spec = (i) => ({ runId, rolloutId: `${runId}-${i}`, image, resources: { cpus: 2, memoryMb: 2048, pids: 2048 }, network, lifetimeSec: 1800 });

// Container start to first observation, a fresh container each time.
const startMs = [];
for (let i = 0; i < Number(values.starts); i++) {
  const t = performance.now();
  const box = await backend.create(spec(`start-${i}`));
  try {
    const up = await box.exec(['/opt/openforge/bin/start-desktop-env'], { timeoutSec: 330, env: { OPENFORGE_START_DEADLINE: '300' } });
    if (up.exitCode !== 0) throw new Error(`start-desktop-env failed:\n${up.stderr}`);
    const obs = await box.exec(['curl', '-sf', '-o', '/dev/null', 'http://127.0.0.1:7000/observation'], { timeoutSec: 60 });
    if (obs.exitCode !== 0) throw new Error('GET /observation failed');
    startMs.push(performance.now() - t);
  } finally {
    await box.remove();
  }
}

const box = await backend.create(spec('steps'));
try {
  await box.writeFiles([
    { path: '/opt/openforge/desktop/bench-step.mjs', content: IN_CONTAINER },
    { path: '/tmp/bench.txt', content: '' },
  ]);
  const up = await box.exec(['/opt/openforge/bin/start-desktop-env'], { timeoutSec: 330, env: { OPENFORGE_START_DEADLINE: '300' } });
  if (up.exitCode !== 0) throw new Error(`start-desktop-env failed:\n${up.stderr}`);
  const loadBefore = loadavg();
  const res = await box.exec(['node', '/opt/openforge/desktop/bench-step.mjs', values.steps], { timeoutSec: 1800 });
  if (res.exitCode !== 0) throw new Error(`bench failed:\n${res.stdout}\n${res.stderr}`);
  const { raw, step, server } = JSON.parse(res.stdout.trim().split('\n').pop());
  const row = (name, xs) => ({ name, p50: q(xs, 0.5), p95: q(xs, 0.95) });
  const rows = [row('raw xdotool + X screenshot', raw), row('step: type (screen changes)', step), row('container start → first obs', startMs)];
  console.log(`desktop env step latency, ${values.steps} steps, 1280x800, mousepad, one container; ${startMs.length} starts`);
  const load = (l) => l.map((v) => v.toFixed(2)).join(' ');
  console.log(`  load average (1/5/15 min): before ${load(loadBefore)}, after ${load(loadavg())}`);
  for (const r of rows) console.log(`  ${r.name.padEnd(30)} p50 ${r.p50.toFixed(1).padStart(7)} ms   p95 ${r.p95.toFixed(1).padStart(7)} ms`);
  const part = (k) =>
    q(
      server.map((s) => s[k]),
      0.5,
    ).toFixed(1);
  console.log(`  step on the server (p50): action ${part('action_ms')} ms, settle ${part('settle_ms')} ms, capture ${part('capture_ms')} ms`);
  const ratio = rows[1].p50 / rows[0].p50;
  console.log(`  step / raw (p50): ${ratio.toFixed(2)}`);
  console.log(JSON.stringify({ bench: 'desktop', steps: Number(values.steps), load: { before: loadBefore, after: loadavg() }, rows, ratio }));
} finally {
  await backend.removeRun(runId);
}
