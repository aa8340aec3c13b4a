#!/usr/bin/env node
// Where one thread of a Node process spent its CPU, from a Linux `perf record` of it (what
// `scripts/bench/proxy.mjs --perf DIR` writes): by kind of code (OpenForge, npm packages, Node's
// own JavaScript, V8's builtins and runtime, the GC, libuv, llhttp, libc, the kernel) and by function.
// The kernel takes each sample on a timer interrupt, so unlike V8's own profiler (a sampling thread
// that must get a core to take its sample) it is not skewed when the process shares or is pinned to a
// core, and it sees native code and system calls too. The process must have run with
// `--perf-basic-prof` for its JavaScript functions to have names.
//
// usage: node scripts/bench/perf-summary.mjs FILE [--tid N] [--top 25]
//   --tid: the thread to summarise (default: the one with the most samples, a server's serving thread)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Samples of one perf.data, as `perf report` groups them: per thread, module and symbol. */
export function readPerf(file) {
  if (!existsSync(file)) throw new Error(`${file}: no such file; pass a perf.data written by \`perf record\` (e.g. by proxy.mjs --perf DIR)`);
  const report = spawnSync('perf', ['report', '-i', file, '--sort', 'pid,dso,sym', '-n', '--no-children', '--stdio'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (report.error) throw new Error(`cannot run perf (${report.error.message}): install it (Debian: apt-get install linux-perf)`);
  if (report.status !== 0) throw new Error(`perf report could not read ${file}: ${report.stderr.trim().split('\n').pop()}`);
  const rows = [];
  let eventCount = 0;
  for (const line of report.stdout.split('\n')) {
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
  if (symbol.startsWith('Builtins_')) return 'V8 builtins (ICs, calls, interpreter)';
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

export function printPerfSummary(file, summary) {
  const share = (n) => `${((n / summary.samples) * 100).toFixed(1).padStart(5)} %`;
  const cpu = summary.cpuMs === null ? '' : ` = ${(summary.cpuMs / 1000).toFixed(2)} s of CPU`;
  console.log(`${file}: thread ${summary.thread} (of ${summary.threads} sampled): ${summary.samples} samples${cpu}`);
  console.log('\nby kind of code');
  for (const [kind, n] of summary.kinds) console.log(`  ${share(n)}  ${kind}`);
  console.log(`\nby function (top ${summary.functions.length})`);
  for (const [name, n] of summary.functions) console.log(`  ${share(n)}  ${name.slice(0, 150)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { tid: { type: 'string' }, top: { type: 'string', default: '25' } } });
  if (positionals.length !== 1) {
    console.error('usage: node scripts/bench/perf-summary.mjs FILE [--tid N] [--top 25]');
    process.exit(2);
  }
  try {
    const tid = values.tid === undefined ? undefined : Number(values.tid);
    printPerfSummary(positionals[0], summarizePerf(positionals[0], { tid, top: Number(values.top) }));
  } catch (err) {
    console.error(`perf-summary: ${err.message}`);
    process.exit(1);
  }
}
