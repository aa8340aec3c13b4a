#!/usr/bin/env node
// Trajectory export throughput and memory, next to a raw SQLite scan of the same rows measured in the same run.
//   npm run build && node scripts/bench/export.mjs [--rollouts 2000] [--turns 50] [--growth 200] [--base 1000] [--keep]
// Builds a synthetic store with two runs, "half" (rollouts/2) and "full" (rollouts), of tool-using
// conversations whose prompts grow by --growth tokens per turn (--base tokens at turn 1), recorded
// through Store.recordCall (delta storage of prompt ids included). Then, each in a child process so
// peak RSS is its own: a raw scan of the full run's call rows, veRL export to JSONL and Parquet of the
// full run, and JSONL export of the half run (memory flatness: peak RSS of N vs 2N calls).
// Also measures what the store costs per call with and without delta storage on one 50-turn rollout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sqlite3 from 'sqlite3';
import { Store } from '../../dist/store/store.js';
import { exportRun } from '../../dist/trajectory/export.js';
import { benchArgs } from './bench-args.mjs';

const { values } = benchArgs(import.meta.url, {
  options: {
    rollouts: { type: 'string', default: '2000' },
    turns: { type: 'string', default: '50' },
    growth: { type: 'string', default: '200' },
    base: { type: 'string', default: '1000' },
    completion: { type: 'string', default: '50' },
    keep: { type: 'boolean', default: false },
    child: { type: 'string' }, // internal: scan | jsonl | parquet
    workers: { type: 'string' }, // internal: export threads of the child (default: the exporter's choice)
    dir: { type: 'string' },
    run: { type: 'string' },
  },
});

const SELF = fileURLToPath(import.meta.url);
const mb = (bytes) => bytes / 1024 / 1024;

if (values.child) {
  process.stdout.write(`${JSON.stringify(await child(values.child, values.dir, values.run))}\n`);
  process.exit(0);
}

// ── synthetic store ─────────────────────────────────────────────────────
const turns = Number(values.turns);
const growth = Number(values.growth);
const completionLen = Number(values.completion);
const baseLen = Number(values.base);
let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
const ids = (n) => Array.from({ length: n }, () => 32 + (rand() % 150000));
const lps = (n) => Array.from({ length: n }, () => -(rand() % 1_000_000) / 97_531);
const CHARS_PER_TOKEN = 3; // text a token stands for, so request JSON grows like the prompt

/** The calls of one rollout as the proxy records them: full message history in every request. */
function* rolloutCalls(rolloutId) {
  const messages = [
    { role: 'system', content: 's'.repeat(Math.floor((baseLen * CHARS_PER_TOKEN) / 2)) },
    { role: 'user', content: 'u'.repeat(Math.floor((baseLen * CHARS_PER_TOKEN) / 2)) },
  ];
  let prompt = ids(baseLen);
  for (let turn = 1; turn <= turns; turn++) {
    const completion = ids(completionLen);
    const toolCalls = [{ id: `call_${turn}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `step ${turn}` }) } }];
    const message = turn < turns ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: 'done' };
    yield {
      rolloutId,
      seq: turn,
      label: 'policy',
      protocol: 'chat',
      model: 'policy',
      stream: true,
      request: { model: 'policy', messages: [...messages], tools: [{ type: 'function', function: { name: 'bash' } }] },
      response: { id: `c${turn}`, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: turn < turns ? 'tool_calls' : 'stop' }] },
      status: 200,
      error: null,
      promptTokenIds: prompt,
      completionTokenIds: completion,
      logprobs: lps(completionLen),
      finishReason: turn < turns ? 'tool_calls' : 'stop',
      upstream: 'http://bench/v1',
      startedAt: Date.now(),
      ttfbMs: 1,
      durationMs: 2,
      missingTokenIds: false,
    };
    const observation = ids(growth - completionLen);
    prompt = [...prompt, ...completion, ...observation];
    messages.push(message, { role: 'tool', tool_call_id: `call_${turn}`, content: 'o'.repeat((growth - completionLen) * CHARS_PER_TOKEN) });
  }
}

async function recordRun(store, runId, rollouts) {
  await store.createRun(runId, { hash: runId, config: { harness: 'bench', model: { upstream: 'http://bench/v1' }, rollouts_per_task: 8, pass_threshold: 1 } });
  for (let i = 0; i < rollouts; i++) {
    const id = `${runId}.task${i % 250}.${Math.floor(i / 250)}.1`;
    await store.addRollout({ id, runId, taskId: `task${i % 250}`, sampleIndex: Math.floor(i / 250), attempt: 1, harness: 'bench' });
    await store.updateRollout(id, { status: 'finished', reward: i % 3 === 0 ? 1 : 0 });
    for (const call of rolloutCalls(id)) await store.recordCall(call);
  }
  await store.setRunStatus(runId, 'finished');
}

// One 50-turn rollout stored with delta ids (Store) and with whole ids (the same rows, prompt_ids whole).
async function storageCost() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-bench-size-'));
  const store = await Store.open(path.join(dir, 'delta.db'));
  await store.createRun('r', { config: {} });
  const calls = [...rolloutCalls('r.one')];
  for (const c of calls) await store.recordCall(c);
  await store.close();
  const whole = await Store.open(path.join(dir, 'whole.db'));
  await whole.close();
  const db = new sqlite3.Database(path.join(dir, 'whole.db'));
  const run = (sql, params = []) => new Promise((res, rej) => db.run(sql, params, (e) => (e ? rej(e) : res())));
  await run('BEGIN');
  const i32 = (a) => Buffer.from(Int32Array.from(a).buffer);
  for (const c of calls) {
    await run(
      `INSERT INTO calls (rollout_id, seq, label, protocol, model, stream, request, response, status, error, prompt_ids, completion_ids, logprobs, finish_reason, upstream, started_at, ttfb_ms, duration_ms, missing_token_ids)
       VALUES (?, ?, 'policy', 'chat', 'policy', 1, ?, ?, 200, NULL, ?, ?, ?, ?, 'u', 0, 1, 2, 0)`,
      [
        c.rolloutId,
        c.seq,
        JSON.stringify(c.request),
        JSON.stringify(c.response),
        i32(c.promptTokenIds),
        i32(c.completionTokenIds),
        Buffer.from(Float64Array.from(c.logprobs).buffer),
        c.finishReason,
      ],
    );
  }
  await run('COMMIT');
  const sum = (file, col) =>
    new Promise((res, rej) => {
      const d = new sqlite3.Database(path.join(dir, file));
      d.get(`SELECT SUM(LENGTH(${col})) AS n FROM calls`, (e, row) => (d.close(), e ? rej(e) : res(row.n)));
    });
  await new Promise((res) => db.close(res));
  const vacuum = (file) =>
    new Promise((res, rej) => {
      const d = new sqlite3.Database(path.join(dir, file));
      d.exec('PRAGMA wal_checkpoint(TRUNCATE); VACUUM;', (e) => (d.close(), e ? rej(e) : res()));
    });
  await vacuum('delta.db');
  await vacuum('whole.db');
  const result = {
    ...(await recordingCost(dir)),
    calls: calls.length,
    promptIdsBytesWhole: await sum('whole.db', 'prompt_ids'),
    promptIdsBytesDelta: await sum('delta.db', 'prompt_ids'),
    requestJsonBytes: await sum('delta.db', 'request'),
    dbBytesWhole: statSync(path.join(dir, 'whole.db')).size,
    dbBytesDelta: statSync(path.join(dir, 'delta.db')).size,
  };
  rmSync(dir, { recursive: true, force: true });
  return result;
}

// What the store costs the recording proxy per call: 20 rollouts of 50 turns recorded with the request
// text the proxy would pass (no re-serialising), all of them interleaved as concurrent rollouts are.
// CPU time of the whole process (SQLite's threads included), from recordCall to flushed.
export async function recordingCost(dir, StoreClass = Store) {
  const rollouts = 20;
  const perRollout = Array.from({ length: rollouts }, (_, i) => [...rolloutCalls(`rec.${i}`)].map((c) => ({ ...c, requestJson: JSON.stringify(c.request) })));
  const store = await StoreClass.open(path.join(dir, 'recording.db'));
  await store.createRun('rec', { config: {} });
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let turn = 0; turn < turns; turn++) {
    await Promise.all(perRollout.map((calls) => store.recordCall(calls[turn])));
  }
  await store.flush();
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  const calls = rollouts * turns;
  return {
    recordCpuUsPerCall: (used.user + used.system) / calls,
    recordWallUsPerCall: (seconds * 1e6) / calls,
    recordDbBytes: statSync(path.join(dir, 'recording.db')).size,
  };
}

// ── children: one measurement each, peak RSS sampled while it runs ──────
async function child(kind, dir, runId) {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  // Neither replacing an earlier export's file nor the kernel writing back earlier runs' output is this export's cost.
  if (kind !== 'scan') rmSync(path.join(dir, `${runId}.${kind}`), { force: true });
  spawnSync('sync');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let result;
  if (kind === 'scan') result = await rawScan(path.join(dir, 'openforge.db'), runId);
  else {
    let calls = 0;
    const workers = values.workers === undefined ? undefined : Number(values.workers);
    const report = await exportRun(dir, { format: 'verl', runId, out: path.join(dir, `${runId}.${kind}`), workers, onRollout: (n) => (calls += n) });
    result = { calls, rows: report.rows, fileBytes: statSync(report.file).size };
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  return {
    ...result,
    seconds,
    callsPerSec: result.calls / seconds,
    cpuSeconds,
    callsPerCpuSec: result.calls / cpuSeconds,
    peakRssMb: mb(peak),
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

/** The columns the exporter scans (it looks up responses and requests only where it needs them), of the same rows in the same order, with no processing. */
function rawScan(file, runId) {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
    let calls = 0;
    let bytes = 0;
    db.each(
      `SELECT c.rollout_id, c.seq, c.label, c.protocol, c.status, c.error, c.finish_reason, c.missing_token_ids, c.prompt_base_seq,
         c.prompt_shared_len, c.completion_ids, c.logprobs, c.prompt_ids
       FROM rollouts r JOIN calls c ON c.rollout_id = r.id WHERE r.run_id = ? ORDER BY r.task_id, r.sample_index, c.seq`,
      [runId],
      (err, row) => {
        if (err) return reject(err);
        calls++;
        bytes += (row.prompt_ids?.length ?? 0) + (row.completion_ids?.length ?? 0) + (row.logprobs?.length ?? 0);
      },
      (err) => (db.close(), err ? reject(err) : resolve({ calls, bytesRead: bytes })),
    );
  });
}

function measure(kind, dir, runId) {
  const r = spawnSync(process.execPath, [SELF, '--child', kind, '--dir', dir, '--run', runId], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const rollouts = Number(values.rollouts);
const dir = mkdtempSync(path.join(os.tmpdir(), 'of-bench-export-'));
try {
  const size = await storageCost();
  console.log(
    `storage of one ${size.calls}-turn rollout: prompt ids ${(size.promptIdsBytesWhole / 1024).toFixed(0)} KiB whole → ${(size.promptIdsBytesDelta / 1024).toFixed(0)} KiB delta ` +
      `(×${(size.promptIdsBytesWhole / size.promptIdsBytesDelta).toFixed(1)}); request JSON ${(size.requestJsonBytes / 1024).toFixed(0)} KiB; ` +
      `db file ${mb(size.dbBytesWhole).toFixed(1)} MiB → ${mb(size.dbBytesDelta).toFixed(1)} MiB`,
  );
  console.log(
    `recording (20 interleaved rollouts × ${turns} turns, the proxy's request text): ${size.recordCpuUsPerCall.toFixed(0)} µs CPU per call ` +
      `(${size.recordWallUsPerCall.toFixed(0)} µs wall), db ${mb(size.recordDbBytes).toFixed(1)} MiB`,
  );

  const t0 = performance.now();
  const store = await Store.open(path.join(dir, 'openforge.db'));
  await recordRun(store, 'half', rollouts / 2);
  await recordRun(store, 'full', rollouts);
  await store.close();
  const dbBytes = statSync(path.join(dir, 'openforge.db')).size + (statSync(path.join(dir, 'openforge.db-wal'), { throwIfNoEntry: false })?.size ?? 0);
  console.log(
    `synthetic store: ${rollouts * 1.5} rollouts × ${turns} turns = ${rollouts * 1.5 * turns} calls, ${mb(dbBytes).toFixed(0)} MiB, built in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );

  measure('scan', dir, 'full'); // warm-up: the same page cache for every measurement
  const scan = measure('scan', dir, 'full');
  const jsonl = measure('jsonl', dir, 'full');
  const parquet = measure('parquet', dir, 'full');
  const half = measure('jsonl', dir, 'half');
  const halfParquet = measure('parquet', dir, 'half');
  const row = (name, m) =>
    `${name.padEnd(28)} ${String(m.calls).padStart(7)} calls  ${m.seconds.toFixed(2).padStart(6)} s  ${Math.round(m.callsPerSec).toString().padStart(7)} calls/s ` +
    `(${Math.round(m.callsPerCpuSec).toString().padStart(7)} per CPU-s)  peak RSS ${m.peakRssMb.toFixed(0).padStart(4)} MiB (maxRSS ${m.maxRssMb.toFixed(0)})`;
  console.log(row('raw SELECT scan (baseline)', scan));
  console.log(row('export verl → JSONL', jsonl) + `  ${mb(jsonl.fileBytes).toFixed(0)} MiB out`);
  console.log(row('export verl → Parquet', parquet) + `  ${mb(parquet.fileBytes).toFixed(0)} MiB out`);
  console.log(row('export verl → JSONL, N/2', half));
  console.log(row('export verl → Parquet, N/2', halfParquet));
  console.log(
    `JSONL export costs ×${(scan.callsPerSec / jsonl.callsPerSec).toFixed(2)} the raw scan (×${(scan.callsPerCpuSec / jsonl.callsPerCpuSec).toFixed(2)} in CPU time)`,
  );
  console.log(
    `peak RSS, N/2 → N calls: JSONL ${half.peakRssMb.toFixed(0)} → ${jsonl.peakRssMb.toFixed(0)} MiB, Parquet ${halfParquet.peakRssMb.toFixed(0)} → ${parquet.peakRssMb.toFixed(0)} MiB`,
  );
  console.log(JSON.stringify({ storage: size, dbBytes, scan, jsonl, parquet, half, halfParquet }));
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
