#!/usr/bin/env node
// Where one thread of a Node process spent its CPU, from a Linux `perf record` of it (what
// `scripts/bench/proxy.mjs --perf DIR` writes): by kind of code (OpenForge, npm packages, Node's
// own JavaScript, V8's builtins and runtime, the GC, libuv, llhttp, libc, the kernel) and by function.
// The kernel takes each sample on a timer interrupt, so unlike V8's own profiler (a sampling thread
// that must get a core to take its sample) it is not skewed when the process shares or is pinned to a
// core, and it sees native code and system calls too. The process must have run with `--perf-prof`
// and the record gone through `perf inject --jit` (what proxy.mjs --perf does), or with
// `--perf-basic-prof`, for its JavaScript functions to have names; the first names every sample right,
// the second may name a sample after code V8 compiled at its address later (see `useLatestJitNames`).
//
// With call chains (`proxy.mjs --perf DIR --perf-call-graph`), `--by-owner` charges each sample to the
// nearest JavaScript function on its stack instead: V8's inline caches, JSON and property lookups, and
// the system calls, counted for the OpenForge, npm or Node function they ran for.
//
// usage: node scripts/bench/perf-summary.mjs FILE [--tid N] [--top 25] [--by-owner]
//   --tid: the thread to summarise (default: the one with the most samples, a server's serving thread)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.mjs';

/**
 * Makes the JIT names of the processes in `file` name the code that ran last at each address.
 * `--perf-basic-prof` appends a line to /tmp/perf-<pid>.map for every function V8 compiles, and V8
 * reuses the addresses of code it threw away, so after a long run a quarter of the lines overlap
 * older ones; perf then names a sample after the older (often larger) entry. Seen: llhttp's callbacks
 * charged to a function of the upstream request that had been compiled at that address earlier.
 * The samples a bench keeps are from its measured rounds, at its end, so the latest entry is the one
 * that ran. The map is rewritten in place (perf reads it from there), its original kept as `.orig`.
 */
export function useLatestJitNames(file) {
  const listed = spawnSync('perf', ['script', '-i', file, '-F', 'pid'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (listed.status !== 0) return;
  for (const pid of new Set(
    listed.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  )) {
    const map = `/tmp/perf-${pid}.map`;
    const original = `${map}.orig`;
    if (!existsSync(map)) continue;
    if (!existsSync(original)) copyFileSync(map, original);
    writeFileSync(map, latestEntries(readFileSync(original, 'utf8')));
  }
}

/** A perf map's lines, the later of two overlapping entries kept (see `useLatestJitNames`). */
export function latestEntries(mapText) {
  const entries = [];
  for (const line of mapText.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) /.exec(line);
    if (m) entries.push({ start: Number.parseInt(m[1], 16), end: Number.parseInt(m[1], 16) + Number.parseInt(m[2], 16), line });
  }
  // latest first; an entry is kept when no later one overlaps it. `kept` stays sorted by start.
  const kept = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid].start < e.start) lo = mid + 1;
      else hi = mid;
    }
    const before = kept[lo - 1];
    const after = kept[lo];
    if ((before && before.end > e.start) || (after && after.start < e.end)) continue;
    kept.splice(lo, 0, e);
  }
  return kept.map((e) => `${e.line}\n`).join('');
}

/** What `perf <command> -i file <args>` prints; a clear error when perf is missing or cannot read the file. */
function perfOutput(file, [command, ...args]) {
  const run = spawnSync('perf', [command, '-i', file, ...args], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  if (run.error) throw new Error(`cannot run perf (${run.error.message}): install it (Debian: apt-get install linux-perf)`);
  if (run.status !== 0) throw new Error(`perf ${command} could not read ${file}: ${run.stderr.trim().split('\n').pop()}`);
  return run.stdout;
}

/** Samples of one perf.data, as `perf report` groups them: per thread, module and symbol. */
export function readPerf(file) {
  if (!existsSync(file)) throw new Error(`${file}: no such file; pass a perf.data written by \`perf record\` (e.g. by proxy.mjs --perf DIR)`);
  useLatestJitNames(file);
  const reportText = perfOutput(file, ['report', '--sort', 'pid,dso,sym', '-n', '--no-children', '--stdio']);
  const rows = [];
  let eventCount = 0;
  for (const line of reportText.split('\n')) {
    const count = /^# Event count \(approx\.\): (\d+)/.exec(line);
    if (count) eventCount += Number(count[1]);
    const row = /^\s*[\d.]+%\s+(\d+)\s+(\d+):(\S+)\s+(.+?)\s+\[(.)\]\s+(.*?)\s*$/.exec(line);
    if (row) rows.push({ samples: Number(row[1]), tid: Number(row[2]), dso: row[4], kind: row[5], symbol: row[6] });
  }
  if (rows.length === 0) throw new Error(`${file}: no samples in it (was the process busy while perf recorded?)`);
  const total = rows.reduce((sum, r) => sum + r.samples, 0);
  // cpu-clock counts nanoseconds: the CPU time one sample stands for
  return { rows, msPerSample: eventCount > 0 ? eventCount / 1e6 / total : null };
}

/** What kind of code a sample was in. */
export function codeKind({ dso, kind, symbol }) {
  if (kind === 'k') return 'kernel';
  if (/^(JS|LazyCompile|Function|Script):/.test(symbol) || dso.startsWith('[JIT]') || dso.startsWith('perf-')) {
    const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(symbol);
    if (npm) return `JS npm ${npm[1]}`;
    if (/ node:/.test(symbol)) return "JS Node's own";
    if (/\/dist\//.test(symbol)) return 'JS OpenForge';
    return 'JS other';
  }
  if (symbol.startsWith('Builtins_') || symbol.startsWith('Builtin:')) return 'V8 builtins (ICs, calls, interpreter)';
  if (symbol.startsWith('RegExp:')) return 'V8 regular expressions';
  // the rest of what `perf inject --jit` names: V8's stubs and handlers
  if (/^jitted-\d+-\d+\.so$/.test(dso)) return 'V8 JIT code (stubs, handlers)';
  if (/Heap|Scaveng|MarkCompact|Marking|Sweep|Evacuat|Worklist|RememberedSet|Ephemeron|cppgc|WriteBarrier/.test(symbol)) return 'V8 GC';
  if (/^v8::|^V8|^Turbofan|^v8_/.test(symbol)) return 'V8 runtime (compiler, JSON, objects)';
  if (/^uv_|^uv__/.test(symbol)) return 'libuv';
  if (/llhttp/.test(symbol)) return 'llhttp';
  if (/^node::/.test(symbol)) return 'Node native';
  if (dso.startsWith('libc')) return 'libc (malloc, memcpy)';
  return dso;
}

/** The thread's samples by kind of code and by function; `tid` undefined: the thread with the most samples. */
export function summarizePerf(file, { tid, top = 25 } = {}) {
  const { rows, msPerSample } = readPerf(file);
  const byThread = new Map();
  for (const r of rows) byThread.set(r.tid, (byThread.get(r.tid) ?? 0) + r.samples);
  const busiest = [...byThread.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const thread = tid ?? busiest;
  if (!byThread.has(thread)) throw new Error(`${file}: thread ${thread} has no samples; its threads: ${[...byThread.keys()].join(', ')}`);
  const mine = rows.filter((r) => r.tid === thread);
  const samples = byThread.get(thread);
  const tally = (key) => {
    const sums = new Map();
    for (const r of mine) sums.set(key(r), (sums.get(key(r)) ?? 0) + r.samples);
    return [...sums.entries()].sort((a, b) => b[1] - a[1]);
  };
  return {
    thread,
    threads: byThread.size,
    samples,
    cpuMs: msPerSample === null ? null : samples * msPerSample,
    kinds: tally(codeKind),
    functions: tally((r) => `${r.symbol.replace(/file:\/\/\S*?\/dist\//, 'dist/')}  [${codeKind(r)}]`).slice(0, top),
  };
}

/** JIT names as V8 writes them for perf: `JS:*name file:///…/dist/x.js:1:2` (the mark is the tier). */
const JS_FRAME = /^(?:JS|LazyCompile|Function):[*~^]?/;

/**
 * One thread's samples charged to the nearest JavaScript function on each sample's stack (its owner):
 * a sample in V8's runtime or the kernel counts for the function that called into it. Samples with no
 * JavaScript frame are grouped by their own function. Needs call chains (`perf record -g`).
 */
export function summarizeOwners(file, { tid, top = 25 } = {}) {
  if (!existsSync(file))
    throw new Error(`${file}: no such file; pass a perf.data written by \`perf record -g\` (e.g. by proxy.mjs --perf DIR --perf-call-graph)`);
  useLatestJitNames(file);
  const scriptText = perfOutput(file, ['script', '-F', 'tid,ip,sym,dso']);
  const samples = [];
  let current = null;
  for (const line of scriptText.split('\n')) {
    if (line.trim() === '') continue;
    // a sample's first line carries its thread id; its stack frames follow, each indented by a tab
    if (!line.startsWith('\t')) {
      current = { tid: Number.parseInt(line.trim(), 10), frames: [] };
      samples.push(current);
    } else if (current) {
      const frame = /^\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$/.exec(line);
      if (frame) current.frames.push({ symbol: frame[1].replace(/\+0x[0-9a-f]+$/, ''), dso: frame[2] });
    }
  }
  if (samples.length === 0) throw new Error(`${file}: no samples in it (was the process busy while perf recorded?)`);
  const counts = new Map();
  for (const s of samples) counts.set(s.tid, (counts.get(s.tid) ?? 0) + 1);
  const thread = tid ?? [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  if (!counts.has(thread)) throw new Error(`${file}: thread ${thread} has no samples; its threads: ${[...counts.keys()].join(', ')}`);
  const mine = samples.filter((s) => s.tid === thread);
  if (!mine.some((s) => s.frames.length > 1))
    throw new Error(`${file}: its samples have no call chains: record with \`perf record -g\` (proxy.mjs --perf DIR --perf-call-graph)`);
  const owners = new Map();
  const kinds = new Map();
  for (const s of mine) {
    const js = s.frames.find((f) => JS_FRAME.test(f.symbol));
    const owner = js ?? s.frames[0] ?? { symbol: '?', dso: '?' };
    const kind = js
      ? codeKind({ dso: owner.dso, kind: '.', symbol: owner.symbol })
      : `no JavaScript on the stack: ${codeKind({ dso: owner.dso, kind: owner.dso === '[kernel.kallsyms]' ? 'k' : '.', symbol: owner.symbol })}`;
    const name = `${owner.symbol
      .replace(JS_FRAME, '')
      .replace(/\S*\/node_modules\//, 'npm:')
      .replace(/file:\/\/\S*?\/dist\//, 'dist/')}  [${kind}]`;
    owners.set(name, (owners.get(name) ?? 0) + 1);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const sorted = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  return {
    thread,
    threads: counts.size,
    samples: mine.length,
    cpuMs: null,
    kinds: sorted(kinds),
    functions: sorted(owners).slice(0, top),
    titles: ['by kind of the owning code', 'by owner'],
  };
}

export function printPerfSummary(file, summary) {
  const share = (n) => `${((n / summary.samples) * 100).toFixed(1).padStart(5)} %`;
  const cpu = summary.cpuMs === null ? '' : ` = ${(summary.cpuMs / 1000).toFixed(2)} s of CPU`;
  console.log(`${file}: thread ${summary.thread} (of ${summary.threads} sampled): ${summary.samples} samples${cpu}`);
  const [kindsTitle, functionsTitle] = summary.titles ?? ['by kind of code', 'by function'];
  console.log(`\n${kindsTitle}`);
  for (const [kind, n] of summary.kinds) console.log(`  ${share(n)}  ${kind}`);
  console.log(`\n${functionsTitle} (top ${summary.functions.length})`);
  for (const [name, n] of summary.functions) console.log(`  ${share(n)}  ${name.slice(0, 150)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = benchArgs(import.meta.url, {
    allowPositionals: true,
    options: { tid: { type: 'string' }, top: { type: 'string', default: '25' }, 'by-owner': { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) {
    console.error('usage: node scripts/bench/perf-summary.mjs FILE [--tid N] [--top 25] [--by-owner]');
    process.exit(2);
  }
  try {
    const tid = values.tid === undefined ? undefined : Number(values.tid);
    const summarize = values['by-owner'] ? summarizeOwners : summarizePerf;
    printPerfSummary(positionals[0], summarize(positionals[0], { tid, top: Number(values.top) }));
  } catch (err) {
    console.error(`perf-summary: ${err.message}`);
    process.exit(1);
  }
}
