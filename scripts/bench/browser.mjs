#!/usr/bin/env node
// Browser env step latency (action + settle + screenshot, through POST /step) against a raw Playwright
// screenshot of the same page, both measured inside the same container in the same run, interleaved.
//   node scripts/bench/browser.mjs [--steps 60] [--dpr 1]
// Needs `npm run build` and Docker; builds the browser image if missing (export OPENFORGE_EXTRA_CA where
// https is intercepted). Prints a table, the ratios, and a JSON line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.mjs';
import { IN_CONTAINER_POST, guiBench, loadWatch, printRows, row, serverP50 } from './gui-bench.mjs';

const { values } = benchArgs(import.meta.url, { options: { steps: { type: 'string', default: '60' }, dpr: { type: 'string', default: '1' } } });
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pages = path.join(root, 'test/fixtures/browser-pages');

// Runs inside the container with the image's Node and playwright-core.
const IN_CONTAINER = `
import { chromium } from 'playwright-core';
const steps = Number(process.argv[2]);
const dpr = Number(process.argv[3]);
const url = 'http://127.0.0.1:8000/targets.html';
const viewport = { width: 1280, height: 800 };
${IN_CONTAINER_POST}
// The page server (a services.d starter) may still be starting.
for (let i = 0; ; i++) {
  const ok = await fetch(url).then((r) => r.ok, () => false);
  if (ok) break;
  if (i > 600) throw new Error('the page server did not answer');
  await new Promise((r) => setTimeout(r, 100));
}
// The raw baseline: a second Chromium with the same flags, same page, same viewport; Playwright's own screenshot.
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: false,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport, deviceScaleFactor: dpr });
await page.goto(url);
await post('/reset', { start_url: url, viewport, device_scale_factor: dpr });
const raw = [], click = [], move = [], server = [];
const time = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };
for (let i = 0; i < 5; i++) { await page.screenshot({ scale: 'css' }); await post('/step', { action: { type: 'screenshot' } }); } // warm-up
for (let i = 0; i < steps; i++) {
  raw.push(await time(() => page.screenshot({ scale: 'css' })));
  let obs;
  click.push(await time(async () => { obs = await post('/step', { action: { type: 'click', x: 650, y: 425 } }); }));
  if (obs.title !== 'hit:B' || obs.last_action_error) throw new Error('the bench click missed: ' + JSON.stringify(obs.last_action_error ?? obs.title));
  server.push(obs.timings);
  move.push(await time(() => post('/step', { action: { type: 'move', x: 300 + (i % 50), y: 600 } })));
}
await browser.close();
console.log(JSON.stringify({ raw, click, move, server }));
`;

const { backend, spec, close } = await guiBench('browser');
const box = await backend.create(spec('0'));
try {
  await box.writeFiles([
    { path: '/srv/pages/targets.html', content: readFileSync(path.join(pages, 'targets.html')) },
    { path: '/opt/openforge/services.d/10-pages', content: readFileSync(path.join(pages, 'serve-pages')), mode: 0o755 },
    { path: '/opt/openforge/browser/bench-step.mjs', content: IN_CONTAINER },
  ]);
  const up = await box.exec(['/opt/openforge/bin/start-browser-env'], { timeoutSec: 330, env: { OPENFORGE_START_DEADLINE: '300' } });
  if (up.exitCode !== 0) throw new Error(`start-browser-env failed:\n${up.stderr}`);
  const load = loadWatch();
  const res = await box.exec(['node', '/opt/openforge/browser/bench-step.mjs', values.steps, values.dpr], { timeoutSec: 1200 });
  if (res.exitCode !== 0) throw new Error(`bench failed:\n${res.stdout}\n${res.stderr}`);
  const { raw, click, move, server } = JSON.parse(res.stdout.trim().split('\n').pop());
  const rows = [row('raw playwright screenshot', raw), row('step: click (page changes)', click), row('step: move (no change)', move)];
  console.log(`browser env step latency, ${values.steps} steps, 1280x800 at DPR ${values.dpr}, local page, one container`);
  const loads = load.print();
  printRows(rows);
  const split = ['action_ms', 'settle_ms', 'capture_ms'].map((k) => `${k} p50 ${serverP50(server, k)}`).join(', ');
  console.log(`  click step on the server: ${split}`);
  const ratios = {
    click_p50: rows[1].p50 / rows[0].p50,
    click_p95: rows[1].p95 / rows[0].p95,
    move_p50: rows[2].p50 / rows[0].p50,
    move_p95: rows[2].p95 / rows[0].p95,
  };
  console.log(
    `  ratio to raw: click p50 ${ratios.click_p50.toFixed(2)}x p95 ${ratios.click_p95.toFixed(2)}x; move p50 ${ratios.move_p50.toFixed(2)}x p95 ${ratios.move_p95.toFixed(2)}x (target <= 1.3x; p50 <= 150 ms)`,
  );
  console.log(JSON.stringify({ bench: 'browser', steps: Number(values.steps), dpr: Number(values.dpr), load: loads, rows, ratios }));
} finally {
  await close();
}
