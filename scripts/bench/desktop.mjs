#!/usr/bin/env node
// Desktop env step latency (xdotool action + settle on X damage and AT-SPI events + X screenshot, through POST /step)
// against a raw `xdotool` action followed by X screenshots (GetImage, polled until the screen shows the change,
// then PNG) of the same change, both inside the same container in the same run, interleaved; and container start to
// first observation the way a rollout's start and environment phases do it (create, then start-desktop-env and
// POST /reset in one exec), with the start script's own phase times.
//   node scripts/bench/desktop.mjs [--steps 60] [--starts 3]
// Needs `npm run build` and Docker; builds the desktop image if missing. Prints a table, the ratio, and a JSON line.
import { startDesktopEnvironment } from '../../dist/rollout/desktop-environment.js';
import { newEnvironmentSecrets } from '../../dist/rollout/gui-environment.js';
import { benchArgs } from './bench-args.mjs';
import { IN_CONTAINER_POST, guiBench, loadWatch, printRows, quantile, row, serverP50 } from './gui-bench.mjs';

const { values } = benchArgs(import.meta.url, { options: { steps: { type: 'string', default: '60' }, starts: { type: 'string', default: '3' } } });

// Runs inside the container with the image's Node, the env server's own X module for the baseline.
const IN_CONTAINER = `
import { execFile } from 'node:child_process';
import { XDisplay, encodePng } from '/opt/openforge/desktop/app/in-container/desktop-env/x-display.js';
const steps = Number(process.argv[2]);
${IN_CONTAINER_POST}
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

const { backend, spec, close } = await guiBench('desktop');
const settings = { launch: [], screen: { width: 1280, height: 800 }, setup_timeout_sec: 300 };

// Container start to first observation, a fresh container each time.
const startMs = [];
const phases = { create: [], environment: [] };
/** start-desktop-env's own log: "<ms since it began> ms <what>" per phase. */
const scriptPhases = new Map();
for (let i = 0; i < Number(values.starts); i++) {
  const t = performance.now();
  const box = await backend.create(spec(`start-${i}`));
  try {
    const created = performance.now();
    await startDesktopEnvironment(box, settings, newEnvironmentSecrets());
    const end = performance.now();
    startMs.push(end - t);
    phases.create.push(created - t);
    phases.environment.push(end - created);
    const log = await box.exec(['cat', '/logs/services/start-desktop-env.log']);
    for (const m of log.stdout.matchAll(/^(\d+) ms (.+)$/gm)) scriptPhases.set(m[2], [...(scriptPhases.get(m[2]) ?? []), Number(m[1])]);
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
  const secrets = newEnvironmentSecrets();
  await startDesktopEnvironment(box, settings, secrets);
  const load = loadWatch();
  const res = await box.exec(['node', '/opt/openforge/desktop/bench-step.mjs', values.steps], {
    timeoutSec: 1800,
    env: { OPENFORGE_ENV_TOKEN: secrets.envToken },
  });
  if (res.exitCode !== 0) throw new Error(`bench failed:\n${res.stdout}\n${res.stderr}`);
  const { raw, step, server } = JSON.parse(res.stdout.trim().split('\n').pop());
  const rows = [row('raw xdotool + X screenshot', raw), row('step: type (screen changes)', step), row('container start → first obs', startMs)];
  console.log(`desktop env step latency, ${values.steps} steps, 1280x800, mousepad, one container; ${startMs.length} starts`);
  const loads = load.print();
  printRows(rows);
  const p50 = (xs) => quantile(xs, 0.5).toFixed(0);
  console.log(`  start (p50): container create + start ${p50(phases.create)} ms, start-desktop-env + POST /reset ${p50(phases.environment)} ms`);
  console.log(`  in start-desktop-env (p50, ms since it began): ${[...scriptPhases].map(([what, ms]) => `${what} ${p50(ms)}`).join('; ')}`);
  const part = (k) => serverP50(server, k);
  console.log(`  step on the server (p50): action ${part('action_ms')} ms, settle ${part('settle_ms')} ms, capture ${part('capture_ms')} ms`);
  const ratio = rows[1].p50 / rows[0].p50;
  console.log(`  step / raw (p50): ${ratio.toFixed(2)} (target <= 1.3; step p50 <= 200 ms; start p50 <= 5000 ms)`);
  console.log(JSON.stringify({ bench: 'desktop', steps: Number(values.steps), load: loads, rows, ratio }));
} finally {
  await close();
}
