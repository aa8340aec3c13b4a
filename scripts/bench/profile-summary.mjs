#!/usr/bin/env node
// Where a thread's busy time went, from a V8 CPU profile (`proxy.mjs --cpu-prof DIR`, or `node --cpu-prof`):
// self time by source file (OpenForge's own files by their path under dist/, npm packages by name, Node's
// internals by module), self time by function, and the inclusive time of OpenForge's functions. Idle
// samples are left out, so each share is of the time the thread ran (or was charged for: see below).
//   node scripts/bench/profile-summary.mjs FILE.cpuprofile [--skip-ms N (leave out the first N ms)] [--top 30]
// A V8 profile samples the thread from a thread of its own: with both pinned to one core, samples fall
// mostly where the profiled thread gives the core up, and the shares say more about the scheduler than
// about the code. Profile with a spare core (proxy.mjs --modes shared).
import { readFileSync } from 'node:fs';
import { benchArgs } from './bench-args.mjs';

const { values, positionals } = benchArgs(import.meta.url, {
  allowPositionals: true,
  options: { 'skip-ms': { type: 'string', default: '0' }, top: { type: 'string', default: '30' } },
});
if (positionals.length !== 1) {
  console.error('usage: node scripts/bench/profile-summary.mjs FILE.cpuprofile [--skip-ms N] [--top N]');
  process.exit(2);
}
const skipUs = Number(values['skip-ms']) * 1000;
const top = Number(values.top);
const profile = readProfile(positionals[0]);

function readProfile(file) {
  let value;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`profile-summary: cannot read ${file} as JSON (${err.message}): give a .cpuprofile file`);
    process.exit(2);
  }
  if (!Array.isArray(value?.nodes) || !Array.isArray(value?.samples) || !Array.isArray(value?.timeDeltas)) {
    console.error(`profile-summary: ${file} is not a V8 CPU profile (no nodes, samples and timeDeltas): give a .cpuprofile file from --cpu-prof`);
    process.exit(2);
  }
  return value;
}

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** Microseconds of samples per node, idle left out. */
const selfUs = new Map();
let busyUs = 0;
let elapsedUs = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsedUs += delta;
  if (elapsedUs < skipUs) continue;
  const id = profile.samples[i];
  if (nodes.get(id).callFrame.functionName === '(idle)') continue;
  busyUs += delta;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
}

const ownFile = (url) => (url.includes('/dist/') ? url.split('/dist/').pop() : undefined);
function fileOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const own = ownFile(url);
  if (own) return `openforge ${own}`;
  if (url.includes('node_modules/')) return `npm ${url.split('node_modules/').pop().split('/')[0]}`;
  return url;
}
const where = ({ url, functionName, lineNumber }) => `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;

const byFile = new Map();
const byFunction = new Map();
const inclusive = new Map();
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
for (const [id, us] of selfUs) {
  const frame = nodes.get(id).callFrame;
  add(byFile, fileOf(frame), us);
  add(byFunction, where(frame), us);
  // each OpenForge function once per sample, however deep it recurses
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const caller = nodes.get(at).callFrame;
    const own = ownFile(caller.url);
    if (!own) continue;
    const key = `${caller.functionName || '(anonymous)'} ${own}:${caller.lineNumber + 1}`;
    if (!seen.has(key)) add(inclusive, key, us);
    seen.add(key);
  }
}

function print(title, map) {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / busyUs).toFixed(1).padStart(6)} %  ${key}`);
  }
}
console.log(`${positionals[0]}: ${(busyUs / 1000).toFixed(0)} ms busy in ${((elapsedUs - Math.min(skipUs, elapsedUs)) / 1000).toFixed(0)} ms`);
print('self time by file', byFile);
print('self time by function', byFunction);
print("inclusive time of OpenForge's functions", inclusive);
