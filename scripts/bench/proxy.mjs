#!/usr/bin/env node
// Recording-proxy overhead, each number next to its baselines measured in the same run:
//   direct       — the client calls the sim upstream itself;
//   passthrough  — BASELINE: a minimal node:http forwarder with no parsing and no recording;
//   proxy        — the OpenForge recording proxy (chat protocol, real SQLite store on a temp file);
//   proxy-nosink — the same proxy dropping its records (diagnostic: the store's share of the cost).
// The sim runs in this process; the proxy, the pass-through and the load generator each run in a
// child process of their own, so no two of them share an event loop. Mode `shared` lets them all
// share the CPUs (what a user sees on one small box); mode `pinned` gives the proxy / pass-through
// a CPU of its own and the sim + load generator the other, as when the upstream is a GPU host.
// Targets run in interleaved rounds, and the 1-minute load average is printed: other work on the
// machine skews every number.
// Four upstreams: `instant` — non-streamed answers come at once, so the sim's and the servers'
// CPU is all that limits a run (a stress test of the proxy's CPU per call); `paced` — non-streamed
// answers take as long as streaming their tokens would (--pace-token-ms per token), as a model
// server's do, and each client runs a tool between its calls (--tool-ms on average, exponentially
// distributed, the same seeded sequence for every target), as a harness does: what the proxy sees in
// production; `lockstep` — paced, with no tool time: the 64 calls started together also finish
// together, forever, so each wave of 64 reaches the proxy at once and queues behind 64 × its CPU per
// call (a worst case no real run keeps up); `engine` — paced as a GPU engine is: each answer's first
// token waits for its prompt's prefill (--prefill-tokens-per-s, 50 000 by default: the bench's prompt in
// ~46 ms), and a decode step lasts 5 ms or the answers being decoded over the engine's decode throughput
// (--decode-tokens-per-s, 12 500 by default: ~5 ms at 64 streams, ~20 ms at 256), as with continuous
// batching; both rates are above published vLLM figures for an 8B model on an H100 (docs/performance.md). It
// measures streams alone, with CPU per stream. Latency is the model call's alone, never the tool time.
// Added latency is measured per call: the sim times each call it serves (request headers to the
// answer's last byte, found by an id in the user message), and a call's `hop` is its latency at the
// client minus that time: what the path between client and sim added. `added` compares each target's
// hop with direct's at the same percentile. Differences of end-to-end percentiles would carry the
// sim's own jitter (its timers on a busy CPU), which swamped a p99 of a few ms. With the `instant`
// upstream the sim is saturated and a hop would hold the wait in its socket queue: there, added
// compares end-to-end percentiles.
// `--passthrough-cpu-us N` makes the pass-through burn N µs per call (diagnostic: a forwarder as
// busy as the proxy shows how much of the proxy's tail its CPU per call alone explains).
// The proxy lowers its helper threads' priority as `openforge proxy` does; `--helper-nice 0` leaves
// them at the serving thread's. The target `framework` (not run by default) is a forwarder on fastify that reads
// each body whole and parses it as the proxy does, then forwards it: what the web framework and the JSON parse
// cost, so that the proxy's own work shows apart from them.
// The target `proxy-nice0` (not run by default) is a second recording proxy
// that leaves them so, to compare the two in one run (docs/performance.md).
// Every target asks the upstream for the same work: the direct and pass-through requests carry the
// token-capture fields the proxy adds (logprobs, return_token_ids, usage in streams), so the upstream
// answers all of them alike.
//   node scripts/bench/proxy.mjs [--levels 1,64,256] [--token-delay-ms 20] [--streams 1000] [--quick]
//                                [--upstreams instant,paced,engine,lockstep] [--pace-token-ms 5] [--tool-ms 100] [--paced-calls-per-client 60]
//                                [--prefill-tokens-per-s 50000] [--decode-tokens-per-s 12500]
//                                [--record-linger-ms N (default: the store's RECORD_LINGER_MS)] [--passthrough-cpu-us N] [--helper-nice 0-19]
//                                [--modes shared,pinned] [--targets direct,passthrough,proxy,proxy-nosink[,framework][,proxy-nice0][,proxy-alt]] [--skip-memory]
//                                [--streams-only (the measured rounds run streams alone, 4× as many, and CPU is per stream)]
//                                [--alt-node-flags='--flag …' (the proxy-alt target: the recording proxy under other Node / V8 flags)]
//                                [--alt-dist DIR (the proxy-alt target: the recording proxy of another build, e.g. an earlier commit's dist/)]
//                                [--request-kb N (default 4: a mid-sized turn; more appends tool turns, as a long rollout's history)]
//                                [--cpu-prof DIR (a CPU profile of the `proxy` target's serving thread over each level's measured
//                                 rounds, not its start-up or warm-up: DIR/proxy-<mode>-<upstream>-<level>.cpuprofile)]
//                                [--perf DIR (Linux perf samples every server target over each level's measured rounds, pinned or
//                                 not, native code and kernel included: DIR/<target>-<mode>-<upstream>-<level>.perf.data, read by
//                                 perf-summary.mjs; the servers run with --perf-prof in DIR, and perf inject --jit names their code)]
//                                [--perf-call-graph (with --perf: call chains too, so perf-summary.mjs --by-owner can charge
//                                 each sample to the JavaScript function it ran for)]
// Needs `npm run build`. Loopback only. Prints a table and a final JSON line.
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seededRandom } from '../../dist/util/seeded-random.js';
import { ANSWER, CALL_MARK, agentTurn } from './agent-turn.mjs';
import { benchArgs } from './bench-args.mjs';
import { summarizePerf } from './perf-summary.mjs';

const SELF = fileURLToPath(import.meta.url);
/** Calls each server answers before it is measured, per level (paced calls last ~0.25 s each). */
const WARMUP_CALLS = 3000;
const WARMUP_CALLS_PACED = 1000;
const CALL_ID = /\[call ([^\]]+)\]/;

const { values } = benchArgs(import.meta.url, {
  options: {
    role: { type: 'string' },
    upstream: { type: 'string' },
    db: { type: 'string' },
    sink: { type: 'string', default: 'store' },
    levels: { type: 'string', default: '1,64,256' },
    'token-delay-ms': { type: 'string', default: '20' },
    upstreams: { type: 'string', default: 'instant,paced,engine,lockstep' },
    'prefill-tokens-per-s': { type: 'string', default: '50000' },
    'decode-tokens-per-s': { type: 'string', default: '12500' },
    'pace-token-ms': { type: 'string', default: '5' },
    'tool-ms': { type: 'string', default: '100' },
    'paced-calls-per-client': { type: 'string', default: '60' },
    'request-kb': { type: 'string', default: '4' },
    'passthrough-cpu-us': { type: 'string', default: '0' },
    'record-linger-ms': { type: 'string', default: '' },
    'helper-nice': { type: 'string', default: '' },
    streams: { type: 'string', default: '1000' },
    quick: { type: 'boolean', default: false },
    targets: { type: 'string', default: 'direct,passthrough,proxy,proxy-nosink' },
    modes: { type: 'string', default: 'shared,pinned' },
    'skip-memory': { type: 'boolean', default: false },
    'streams-only': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string', default: '' },
    perf: { type: 'string', default: '' },
    'alt-node-flags': { type: 'string', default: '' },
    'alt-dist': { type: 'string', default: '' },
    'perf-call-graph': { type: 'boolean', default: false },
    dist: { type: 'string', default: '' },
  },
});
/** Node / V8 flags of the `proxy-alt` target: the recording proxy again, to compare flags in one run. */
const altNodeFlags = values['alt-node-flags'].split(/\s+/).filter(Boolean);
/** The `proxy-alt` target's build: another `dist` folder (`--alt-dist`), to compare two builds in one run. */
const altDist = values['alt-dist'] ? ['--dist', path.resolve(values['alt-dist'])] : [];
/** The niceness a server role gives its helper threads: `--helper-nice`, else `openforge proxy`'s default. */
const helperNice = (defaultNice) => (values['helper-nice'] === '' ? defaultNice : Number(values['helper-nice']));
/** Size of each non-streamed request body, in KB (at least the ~4 KB base turn). */
const REQUEST_KB = Number(values['request-kb']);
/** `--streams-only`: the measured rounds run streams alone (a profile of the streaming path; CPU per stream). */
const streamsOnly = values['streams-only'];
/** `--cpu-prof DIR`: where the `proxy` target's profiles of its measured rounds go. */
const cpuProfDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : '';
if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
/** `--perf DIR`: where Linux perf's records of each server target's measured rounds go (see perf-summary.mjs). */
const perfDir = values.perf ? path.resolve(values.perf) : '';
if (values['perf-call-graph'] && !perfDir) throw new Error('--perf-call-graph records call chains for --perf: pass --perf DIR too');
if (perfDir) {
  if (spawnSync('perf', ['--version']).status !== 0) throw new Error('--perf needs Linux perf on the PATH: install it (Debian: apt-get install linux-perf)');
  mkdirSync(perfDir, { recursive: true });
}
/**
 * Node flags of every server target: with --perf, V8 writes a jitdump of the code it compiles and moves
 * (`jit-<pid>.dump`, in the server's working directory: DIR), which `perf inject --jit` turns into names
 * for every sample. A perf map (`--perf-basic-prof`) logs code creation only, and V8 reuses the
 * addresses of code it dropped: perf then charged samples of the socket writes to a function compiled
 * later at their address.
 */
const serverNodeFlags = perfDir ? ['--perf-prof', '--interpreted-frames-native-stack'] : [];
if (!(REQUEST_KB > 0)) throw new Error(`--request-kb ${values['request-kb']}: use a number of kilobytes, more than 0`);

// ── roles ───────────────────────────────────────────────────────────────────

async function proxyRole() {
  // `--dist` (the proxy-alt target under --alt-dist): another build of OpenForge, e.g. an earlier commit's
  const dist = values.dist ? `${pathToFileURL(path.resolve(values.dist)).href}/` : new URL('../../dist/', import.meta.url).href;
  const { startProxy } = await import(new URL('proxy/server.js', dist).href);
  const { RECORD_LINGER_MS, Store } = await import(new URL('store/store.js', dist).href);
  const { HELPER_THREADS_NICE, lowerHelperThreads } = await import(new URL('util/helper-threads.js', dist).href);
  // `--sink none` (diagnostics only): the same proxy recording into a sink that drops every call
  const recordLingerMs = values['record-linger-ms'] ? Number(values['record-linger-ms']) : RECORD_LINGER_MS;
  if (!(recordLingerMs >= 0)) throw new Error(`--record-linger-ms ${values['record-linger-ms']}: use a number of milliseconds, 0 or more`);
  const store = values.sink === 'none' ? nullStore() : await Store.open(values.db, { recordLingerMs, callWriterThread: true });
  const sessions = new Map();
  for (let i = 0; i < 256; i++) {
    const session = { rolloutId: `bench-${i}`, runId: 'bench', taskId: 'bench-task', secret: `bench-secret-${i}` };
    sessions.set(session.secret, session);
  }
  const proxy = await startProxy({
    upstreams: [{ url: values.upstream, kind: 'vllm' }],
    sessions: { bySecret: (secret) => sessions.get(secret) },
    sink: store,
  });
  // as `openforge proxy` does (--helper-nice): V8's and libuv's threads yield to the serving thread
  lowerHelperThreads(helperNice(HELPER_THREADS_NICE));
  process.on('message', async (message) => {
    if (message.type === 'rss') process.send({ type: 'rss', rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed });
    if (message.type === 'cpu') process.send(cpuUsage());
    if (message.type === 'profile-start') process.send({ type: 'profiling', ...(await profiler.start()) });
    if (message.type === 'profile-stop') process.send({ type: 'profiled', file: await profiler.stop(message.file) });
    if (message.type === 'close') {
      await proxy.close();
      const counts = await store.countCalls([...sessions.values()].map((s) => s.rolloutId));
      await store.close();
      process.send({ type: 'closed', recorded: [...counts.values()].reduce((a, b) => a + b, 0) });
      process.exit(0);
    }
  });
  const profiler = serverProfiler();
  process.send({ type: 'ready', url: proxy.url, secrets: [...sessions.keys()], rss: process.memoryUsage().rss });
}

/**
 * The serving thread's CPU profile, started and stopped by the bench around the measured rounds
 * (`--cpu-prof`), so that start-up and warm-up (compiling, the first GCs) stay out of it.
 */
function serverProfiler() {
  let session;
  const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  return {
    async start() {
      const { Session } = await import('node:inspector');
      session = new Session();
      session.connect();
      await post('Profiler.enable');
      // 250 µs: a paced call costs the serving thread ~1 ms, so each call is sampled a few times
      await post('Profiler.setSamplingInterval', { interval: 250 });
      await post('Profiler.start');
      return {};
    },
    async stop(file) {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

/**
 * CPU time of this process, all threads (the store's SQLite work runs on libuv's pool), and of its
 * main thread alone (Linux): the serving thread's share is what a call waits behind.
 */
function cpuUsage() {
  const { user, system } = process.cpuUsage();
  const { minorPageFault, voluntaryContextSwitches, involuntaryContextSwitches } = process.resourceUsage();
  const main = mainThreadCpuMs();
  return {
    type: 'cpu',
    ms: (user + system) / 1000,
    user: user / 1000,
    system: system / 1000,
    mainMs: main && main.userMs + main.systemMs,
    mainSystemMs: main && main.systemMs,
    minorFaults: minorPageFault,
    contextSwitches: voluntaryContextSwitches + involuntaryContextSwitches,
  };
}

/** The main thread's user and system time from /proc (in clock ticks, 100 per second on Linux: exact enough over a round); null elsewhere. */
function mainThreadCpuMs() {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { userMs: Number(fields[11]) * (1000 / 100), systemMs: Number(fields[12]) * (1000 / 100) };
  } catch {
    return null;
  }
}

function nullStore() {
  return { record: async () => undefined, countCalls: async () => new Map(), close: async () => undefined };
}

/** BASELINE: forwards bytes both ways, parses and records nothing. */
async function passthroughRole() {
  const upstream = new URL(values.upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
  const extraCpuMs = Number(values['passthrough-cpu-us']) / 1000;
  const server = http.createServer({ keepAliveTimeout: 72_000, requestTimeout: 0, noDelay: true }, (req, res) => {
    // diagnostic: a forwarder as busy per call as the proxy, to tell its CPU from anything else
    for (const end = performance.now() + extraCpuMs; performance.now() < end;);
    req.pipe(relayed(upstream, agent, res, { method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await serveForwarder(`http://127.0.0.1:${server.address().port}`);
}

/** A request to the upstream whose answer is relayed to `res` as it comes (502 if the upstream fails). */
function relayed(upstream, agent, res, { method, path: requestPath, headers }) {
  const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method, path: requestPath, headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  forwarded.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  res.on('close', () => forwarded.destroy());
  return forwarded;
}

/** A forwarder role's life after listening: the proxy's thread policy, then the bench's messages. */
async function serveForwarder(url) {
  // the same thread policy as the proxy's, so that they differ by what the proxy does alone
  const { HELPER_THREADS_NICE, lowerHelperThreads } = await import('../../dist/util/helper-threads.js');
  lowerHelperThreads(helperNice(HELPER_THREADS_NICE));
  process.on('message', (message) => {
    if (message.type === 'cpu') process.send(cpuUsage());
    if (message.type === 'close') process.exit(0);
  });
  process.send({ type: 'ready', url });
}

/**
 * Diagnostic: a forwarder on the proxy's web framework. Each body is read whole and parsed, as the
 * proxy's content-type parser does, then its bytes are forwarded and the answer relayed as it comes.
 * Between it and the pass-through: fastify and the parse; between it and the proxy: the proxy's own work.
 */
async function frameworkRole() {
  const { default: Fastify } = await import('fastify');
  const upstream = new URL(values.upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
  const app = Fastify({ keepAliveTimeout: 72_000, requestTimeout: 0, bodyLimit: 32 * 1024 * 1024 });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, bytes, done) => {
    try {
      done(null, { bytes, parsed: JSON.parse(bytes.toString('utf8')) });
    } catch (err) {
      done(err, undefined);
    }
  });
  app.post('/v1/chat/completions', (request, reply) => {
    reply.hijack();
    const { bytes } = request.body;
    const headers = { 'content-type': 'application/json', 'content-length': bytes.length, host: upstream.host };
    relayed(upstream, agent, reply.raw, { method: 'POST', path: request.url, headers }).end(bytes);
  });
  await serveForwarder(await app.listen({ port: 0, host: '127.0.0.1' }));
}

function loadgenRole() {
  const agents = new Map();
  const agentFor = (key, maxSockets) => {
    if (!agents.has(key)) agents.set(key, new http.Agent({ keepAlive: true, maxSockets }));
    return agents.get(key);
  };
  let held = [];
  process.on('message', async (job) => {
    if (job.type === 'run') {
      const agent = agentFor(`${job.target}:${job.concurrency}`, job.concurrency);
      if (job.warmup > 0) await closedLoop(job, agent, job.warmup);
      const started = performance.now();
      const samples = await closedLoop(job, agent, job.requests);
      const wallMs = performance.now() - started;
      process.send({ type: 'result', wallMs, samples });
    }
    if (job.type === 'hold') {
      const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
      let firstBytes = 0;
      held = [];
      await new Promise((resolve) => {
        const deadline = setTimeout(resolve, job.timeoutMs);
        for (let i = 0; i < job.count; i++) {
          const req = http.request(job.urls[i % job.urls.length], { method: 'POST', headers: job.headers, agent }, (res) => {
            res.once('data', () => {
              if (++firstBytes === job.count) {
                clearTimeout(deadline);
                resolve();
              }
            });
            res.on('error', () => undefined);
          });
          req.on('error', () => undefined);
          req.end(job.body);
          held.push(req);
        }
      });
      process.send({ type: 'holding', open: firstBytes });
    }
    if (job.type === 'release') {
      for (const req of held) req.destroy();
      held = [];
      process.send({ type: 'released' });
    }
    if (job.type === 'exit') process.exit(0);
  });
  process.send({ type: 'ready' });
}

/**
 * `concurrency` workers, each sending its next request when the last one finished, after a tool
 * run of `job.toolMs` on average (exponential; worker w draws the same sequence in every run).
 */
async function closedLoop(job, agent, total) {
  const samples = [];
  let issued = 0;
  const worker = async (w) => {
    const random = seededRandom(w + 1);
    while (issued < total) {
      issued++;
      if (job.toolMs > 0) await new Promise((resolve) => setTimeout(resolve, -Math.log(1 - random()) * job.toolMs));
      const id = `${job.tag}.${w}.${issued}`;
      const text = job.body.replace(CALL_MARK, id);
      const sample = await once(job.urls[w % job.urls.length], { ...job.headers, 'content-length': Buffer.byteLength(text) }, text, agent);
      samples.push({ ...sample, id });
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, (_, w) => worker(w)));
  return samples;
}

/** One request: total latency, first body byte, first content token (streams). */
function once(url, headers, body, agent) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let ttfb = null;
    let ttft = null;
    const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
      res.on('data', (chunk) => {
        const now = performance.now();
        ttfb ??= now - t0;
        if (ttft === null && /"content":"[^"]/.test(chunk.toString())) ttft = now - t0;
      });
      res.on('end', () => resolve({ ok: res.statusCode === 200, ms: performance.now() - t0, ttfb, ttft }));
      res.on('error', () => resolve({ ok: false, ms: performance.now() - t0, ttfb, ttft }));
    });
    req.on('error', () => resolve({ ok: false, ms: performance.now() - t0, ttfb, ttft }));
    req.end(body);
  });
}

/** What a target's path added to a stream's first byte over direct's, paired per stream (p50). */
function ttfbHopAdded(target, direct) {
  return target.ttfbHopP50 === null || direct.ttfbHopP50 === null ? null : target.ttfbHopP50 - direct.ttfbHopP50;
}

/** The TTFB ratio with the sim's own time to first byte taken as direct's: (direct's TTFB + hop added) / direct's TTFB. */
function pairedTtfbRatio(target, direct) {
  const added = ttfbHopAdded(target, direct);
  return added === null || !direct.ttfbP50 ? null : (direct.ttfbP50 + added) / direct.ttfbP50;
}

function summarize(samples) {
  const pct = (xs, p) => {
    const sorted = xs.filter((x) => x !== null).sort((a, b) => a - b);
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : null;
  };
  const ms = samples.map((s) => s.ms);
  const hops = samples.map((s) => s.hop ?? null);
  return {
    count: samples.length,
    errors: samples.filter((s) => !s.ok).length,
    p50: pct(ms, 50),
    p99: pct(ms, 99),
    hopP50: pct(hops, 50),
    hopP99: pct(hops, 99),
    hopPercentiles: Object.fromEntries(HOP_PERCENTILES.map((p) => [p, pct(hops, p)])),
    ttfbP50: pct(
      samples.map((s) => s.ttfb),
      50,
    ),
    ttfbP99: pct(
      samples.map((s) => s.ttfb),
      99,
    ),
    ttfbHopP50: pct(
      samples.map((s) => s.ttfbHop ?? null),
      50,
    ),
    ttfbHopP99: pct(
      samples.map((s) => s.ttfbHop ?? null),
      99,
    ),
    ttftP50: pct(
      samples.map((s) => s.ttft),
      50,
    ),
    ttftP99: pct(
      samples.map((s) => s.ttft),
      99,
    ),
  };
}

// ── main ────────────────────────────────────────────────────────────────────

/** Every child process still running, so that one that dies early takes the others with it. */
const children = new Set();

/** A child process of this script in `role`, optionally pinned to one CPU; talks over IPC. */
function child(role, args = [], cpu = undefined, nodeFlags = []) {
  const argv = [SELF, '--role', role, ...args];
  const stdio = ['ignore', 'inherit', 'inherit', 'ipc'];
  // a server's jitdump goes to its working directory (see `serverNodeFlags`)
  const cwd = nodeFlags.includes('--perf-prof') ? perfDir : undefined;
  const proc =
    cpu === undefined
      ? fork(SELF, argv.slice(1), { stdio, execArgv: nodeFlags, cwd })
      : spawn('taskset', ['-c', String(cpu), process.execPath, ...nodeFlags, ...argv], { stdio, cwd });
  const waiting = [];
  proc.on('message', (message) => waiting.shift()?.(message));
  children.add(proc);
  proc.on('exit', (code) => {
    children.delete(proc);
    if (code === 0 || !waiting.length) return;
    // it will never answer: stop the whole bench instead of waiting for it
    console.error(`bench: the ${role} process exited with ${code}`);
    for (const other of children) other.kill();
    process.exit(1);
  });
  const next = () => new Promise((resolve) => waiting.push(resolve));
  return {
    proc,
    next,
    ask: (message) => {
      const reply = next();
      proc.send(message);
      return reply;
    },
  };
}

/**
 * Linux perf sampling one process (all its threads) until `stop`: the kernel takes each sample on a
 * timer interrupt, so a pinned server is sampled where it runs (V8's profiler is not; see --cpu-prof).
 */
function perfRecord(pid, file) {
  const callGraph = values['perf-call-graph'] ? ['-g'] : [];
  const raw = `${file}.raw`;
  // -k 1: the samples on the monotonic clock, which the jitdump's records are timed by
  const perf = spawn('perf', ['record', '-q', '-k', '1', '-e', 'cpu-clock', '-F', '1999', ...callGraph, '-p', String(pid), '-o', raw], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => perf.once('exit', resolve));
  return {
    pid,
    async stop() {
      perf.kill('SIGINT');
      await exited;
      // the JIT code's names and moves into the record: one small ELF per function, DIR/jitted-<pid>-<n>.so,
      // which perf reads from there (the copies perf also caches by build id are not needed, and large)
      const cache = path.join(perfDir, '.debug');
      const injected = spawnSync('perf', ['--buildid-dir', cache, 'inject', '--jit', '-i', raw, '-o', file], { encoding: 'utf8' });
      rmSync(cache, { recursive: true, force: true });
      if (injected.status !== 0) throw new Error(`perf inject --jit ${raw}: ${injected.stderr.trim().split('\n').pop()}`);
      rmSync(raw);
      return file;
    },
  };
}

function pinSelf(cpus) {
  return spawnSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)]).status === 0;
}

const TARGETS = ['direct', 'passthrough', 'framework', 'proxy', 'proxy-nosink', 'proxy-nice0', 'proxy-alt'];
const HOP_PERCENTILES = [50, 90, 95, 99, 99.9];
const UPSTREAMS = ['instant', 'paced', 'engine', 'lockstep'];
const ROUNDS = 3;

/**
 * One full latency/throughput/streaming pass. `pinned`: the sim (this process) and the load
 * generator share CPU 0, the proxy or pass-through gets CPU 1 — as when the upstream is on a
 * GPU host of its own; unpinned, all of them share both CPUs.
 */
async function runMode(mode, { sim, speed, dir, levels, scale, targets, toolMs: meanToolMs, pacedCallsPerClient }) {
  const simUrl = sim.url;
  const paced = speed !== 'instant';
  const toolMs = speed === 'paced' || speed === 'engine' ? meanToolMs : 0;
  // the engine upstream measures streams alone, as --streams-only does everywhere
  const streamsAlone = streamsOnly || speed === 'engine';
  const pinned = mode === 'pinned';
  if (pinned && !pinSelf('0')) throw new Error('taskset failed: cannot run the pinned mode');
  if (pinned && cpuProfDir) {
    // seen here: 617 ms of samples where the thread ran ~5 s, a third of them "(garbage collector)"
    console.error(
      "bench: --cpu-prof in the pinned mode: V8's sampling thread shares the proxy's core, so it samples mostly where the serving thread gives the core up; profile with --modes shared",
    );
  }
  const hop = pinned ? 1 : undefined;
  const procs = {
    proxy: child(
      'proxy',
      [
        '--upstream',
        simUrl,
        '--db',
        path.join(dir, `${mode}-${speed}.db`),
        '--record-linger-ms',
        values['record-linger-ms'],
        '--helper-nice',
        values['helper-nice'],
      ],
      hop,
      serverNodeFlags,
    ),
    'proxy-nosink': child('proxy', ['--upstream', simUrl, '--sink', 'none', '--helper-nice', values['helper-nice']], hop, serverNodeFlags),
    passthrough: child('passthrough', ['--upstream', simUrl, '--helper-nice', values['helper-nice']], hop, serverNodeFlags),
    // diagnostic, on request: the web framework and the JSON parse alone, forwarding
    ...(targets.includes('framework')
      ? { framework: child('framework', ['--upstream', simUrl, '--helper-nice', values['helper-nice']], hop, serverNodeFlags) }
      : {}),
    // diagnostic, on request: a second recording proxy whose helper threads keep the serving thread's priority
    ...(targets.includes('proxy-nice0')
      ? {
          'proxy-nice0': child(
            'proxy',
            ['--upstream', simUrl, '--db', path.join(dir, `${mode}-${speed}-nice0.db`), '--record-linger-ms', values['record-linger-ms'], '--helper-nice', '0'],
            hop,
            serverNodeFlags,
          ),
        }
      : {}),
    // diagnostic, on request: a second recording proxy started with other Node / V8 flags (--alt-node-flags)
    ...(targets.includes('proxy-alt')
      ? {
          'proxy-alt': child(
            'proxy',
            [
              '--upstream',
              simUrl,
              '--db',
              path.join(dir, `${mode}-${speed}-alt.db`),
              '--record-linger-ms',
              values['record-linger-ms'],
              '--helper-nice',
              values['helper-nice'],
              ...altDist,
            ],
            hop,
            [...serverNodeFlags, ...altNodeFlags],
          ),
        }
      : {}),
  };
  const loadgen = child('loadgen', [], pinned ? 0 : undefined);
  const info = {};
  await Promise.all([loadgen.next(), ...Object.entries(procs).map(async ([name, c]) => (info[name] = await c.next()))]);
  const urls = {
    direct: [`${simUrl}/chat/completions`],
    passthrough: [`${info.passthrough.url}/v1/chat/completions`],
    framework: info.framework && [`${info.framework.url}/v1/chat/completions`],
    proxy: info.proxy.secrets.map((secret) => `${info.proxy.url}/s/${secret}/v1/chat/completions`),
    'proxy-nosink': info['proxy-nosink'].secrets.map((secret) => `${info['proxy-nosink'].url}/s/${secret}/v1/chat/completions`),
    'proxy-nice0': info['proxy-nice0']?.secrets.map((secret) => `${info['proxy-nice0'].url}/s/${secret}/v1/chat/completions`),
    'proxy-alt': info['proxy-alt']?.secrets.map((secret) => `${info['proxy-alt'].url}/s/${secret}/v1/chat/completions`),
  };
  // what the proxy adds to every upstream request, sent by the other targets themselves: same upstream work
  const tokenCapture = { logprobs: true, return_token_ids: true };
  const streamCapture = { ...tokenCapture, stream_options: { include_usage: true } };
  // instant streams are capped at 8 tokens: TTFB/TTFT are about their start, and a long tail only costs
  // time; paced streams carry the whole answer, as the paced non-streamed calls do, so that clients
  // call as often and the proxy relays every token of it
  const streamCap = speed === 'instant' ? { max_tokens: 8 } : {};
  const bodies = (capture) => ({
    whole: JSON.stringify({ ...agentTurn(false, REQUEST_KB), ...(capture ? tokenCapture : {}) }),
    stream: JSON.stringify({ ...agentTurn(true, REQUEST_KB), ...streamCap, ...(capture ? streamCapture : {}) }),
  });
  const bodyFor = {
    direct: bodies(true),
    passthrough: bodies(true),
    framework: bodies(true),
    proxy: bodies(false),
    'proxy-nosink': bodies(false),
    'proxy-nice0': bodies(false),
    'proxy-alt': bodies(false),
  };

  const drain = async (target) => {
    // the records of a target's calls are written before anything else runs (and count in its CPU)
    if (!procs[target]) return;
    await fetch(`${info[target].url}/control/drain`, { method: 'POST' }).catch(() => undefined);
    await fetch(`${info[target].url}/control/resume`, { method: 'POST' }).catch(() => undefined);
  };
  const rows = [];
  let runs = 0;
  for (const concurrency of levels) {
    // paced calls last ~0.25 s each: fewer of them, though enough (60 per client by default) that a p99
    // is not a handful of unlucky calls. Streams run at the instant upstream (no tool time: the clients'
    // streams start in waves, a worst case) and the paced one (a tool between streams, as a harness
    // does); lockstep's waves are instant's for a stream, so it measures none.
    // --streams-only: the rounds measure streams alone (the warm-up still serves non-streamed calls, for V8)
    const requests = streamsAlone ? 0 : Math.round((paced ? Math.max(600, concurrency * pacedCallsPerClient) : Math.max(1_000, concurrency * 16)) * scale);
    const streams = speed === 'lockstep' ? 0 : Math.round(Math.max(120, concurrency * 4) * scale * (streamsAlone ? 4 : 1));
    const collected = Object.fromEntries(
      targets.map((t) => [
        t,
        {
          whole: [],
          stream: [],
          wholeWallMs: 0,
          cpuMs: 0,
          mainCpuMs: 0,
          mainSystemMs: 0,
          minorFaults: 0,
          contextSwitches: 0,
          cpuWallMs: 0,
          hopP99ByRound: [],
          ttfbP50ByRound: [],
          ttfbHopP50ByRound: [],
        },
      ]),
    );
    const run = async (target, text, count, warmup) => {
      const result = await loadgen.ask({
        type: 'run',
        tag: `${target}.${concurrency}.${++runs}`,
        target,
        urls: urls[target],
        headers: headersFor(text),
        body: text,
        concurrency,
        requests: count,
        warmup,
        toolMs,
      });
      for (const sample of result.samples) {
        const served = sim.serviceMs.get(sample.id);
        sample.hop = served === undefined || !sample.ok ? null : sample.ms - served;
        const firstByte = sim.firstByteMs.get(sample.id);
        sample.ttfbHop = firstByte === undefined || !sample.ok || sample.ttfb === null ? null : sample.ttfb - firstByte;
      }
      sim.serviceMs.clear();
      sim.firstByteMs.clear();
      return result;
    };
    // Warm every target up, then interleave short rounds in a rotating order, so that a burst of
    // load from elsewhere on the machine hits every target alike instead of one of them. The warm-up is
    // long enough for V8 to have optimised the servers' hot paths (a proxy serves for hours): with a
    // few hundred calls, CPU per call still counted baseline-tier code and compilation.
    for (const target of targets) {
      await run(target, bodyFor[target].whole, 0, Math.round((paced ? WARMUP_CALLS_PACED : WARMUP_CALLS) * scale) + concurrency);
      if (streams > 0) await run(target, bodyFor[target].stream, 0, streamsAlone ? Math.max(500, concurrency * 8) : concurrency);
      await drain(target);
    }
    // The servers rotate and direct closes every round: the target that runs right after direct read
    // 100–200 µs more CPU per call and a higher hop p50 (A/A runs, one build in two slots, either
    // order; cause not found), so each server takes that place in turn (once each in the default
    // 3 servers × 3 rounds).
    const servers = targets.filter((t) => t !== 'direct');
    // the other targets' rounds leave the proxy idle, and idle samples are not the serving thread's work
    if (cpuProfDir && targets.includes('proxy')) await procs.proxy.ask({ type: 'profile-start' });
    const perfRecords = perfDir
      ? servers.filter((t) => procs[t]).map((t) => perfRecord(procs[t].proc.pid, path.join(perfDir, `${t}-${mode}-${speed}-${concurrency}.perf.data`)))
      : [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...servers.map((_, i) => servers[(i + round) % servers.length]), ...(targets.includes('direct') ? ['direct'] : [])];
      for (const target of order) {
        const server = procs[target];
        const cpu = async (measure) => {
          const before = server ? await server.ask({ type: 'cpu' }) : null;
          const started = performance.now();
          const result = await measure();
          if (server) {
            collected[target].cpuWallMs += performance.now() - started;
            const after = await server.ask({ type: 'cpu' });
            collected[target].cpuMs += after.ms - before.ms;
            if (after.mainMs !== null) collected[target].mainCpuMs += after.mainMs - before.mainMs;
            if (after.mainSystemMs !== null) collected[target].mainSystemMs += after.mainSystemMs - before.mainSystemMs;
            collected[target].minorFaults += after.minorFaults - before.minorFaults;
            collected[target].contextSwitches += after.contextSwitches - before.contextSwitches;
          }
          return result;
        };
        const measureWhole = async () => {
          const whole = await run(target, bodyFor[target].whole, Math.ceil(requests / ROUNDS), 0);
          await drain(target);
          return whole;
        };
        const whole = streamsAlone ? { samples: [], wallMs: 0 } : await cpu(measureWhole);
        collected[target].whole.push(...whole.samples);
        collected[target].hopP99ByRound.push(summarize(whole.samples).hopP99);
        collected[target].wholeWallMs += whole.wallMs;
        if (streams > 0) {
          const measureStreams = async () => {
            const stream = await run(target, bodyFor[target].stream, Math.ceil(streams / ROUNDS), 0);
            await drain(target);
            return stream;
          };
          const { samples } = await (streamsAlone ? cpu(measureStreams) : measureStreams());
          collected[target].stream.push(...samples);
          const summary = summarize(samples);
          collected[target].ttfbP50ByRound.push(summary.ttfbP50);
          collected[target].ttfbHopP50ByRound.push(summary.ttfbHopP50);
        }
      }
    }
    for (const record of perfRecords) {
      const file = await record.stop();
      const summary = summarizePerf(file, { tid: record.pid, top: 12 });
      const kinds = summary.kinds
        .slice(0, 6)
        .map(([kind, n]) => `${kind} ${((n / summary.samples) * 100).toFixed(1)} %`)
        .join(', ');
      console.error(`bench: perf, ${path.basename(file)}: serving thread ${summary.samples} samples; ${kinds} (node scripts/bench/perf-summary.mjs ${file})`);
    }
    if (cpuProfDir && targets.includes('proxy')) {
      const { file } = await procs.proxy.ask({ type: 'profile-stop', file: path.join(cpuProfDir, `proxy-${mode}-${speed}-${concurrency}.cpuprofile`) });
      console.error(`bench: the proxy's CPU profile over the measured rounds: ${file}`);
    }
    const row = {
      concurrency,
      whole: {},
      stream: {},
      cpuUsPerCall: {},
      mainThreadCpuUsPerCall: {},
      mainThreadBusy: {},
      mainThreadSystemUsPerCall: {},
      minorFaultsPerCall: {},
      contextSwitchesPerCall: {},
    };
    for (const target of targets) {
      const c = collected[target];
      row.whole[target] = { ...summarize(c.whole), wallMs: c.wholeWallMs, hopP99ByRound: c.hopP99ByRound };
      row.stream[target] = { ...summarize(c.stream), ttfbP50ByRound: c.ttfbP50ByRound, ttfbHopP50ByRound: c.ttfbHopP50ByRound };
      // per non-streamed call; per stream with --streams-only
      const calls = streamsAlone ? c.stream.length : c.whole.length;
      if (procs[target]) row.cpuUsPerCall[target] = (c.cpuMs * 1000) / calls;
      if (procs[target]) row.mainThreadCpuUsPerCall[target] = (c.mainCpuMs * 1000) / calls;
      // the share of the measured rounds' wall time the serving thread ran: near 1, new work queues for it
      if (procs[target]) row.mainThreadBusy[target] = c.cpuWallMs > 0 ? c.mainCpuMs / c.cpuWallMs : null;
      // where the kernel's share goes: the serving thread's system time, page faults and context switches of the process
      if (procs[target]) row.mainThreadSystemUsPerCall[target] = (c.mainSystemMs * 1000) / calls;
      if (procs[target]) row.minorFaultsPerCall[target] = c.minorFaults / calls;
      if (procs[target]) row.contextSwitchesPerCall[target] = c.contextSwitches / calls;
    }
    rows.push(row);
  }
  const rssAfterLoad = (await procs.proxy.ask({ type: 'rss' })).rss;
  const closed = await procs.proxy.ask({ type: 'close' });
  await procs['proxy-nosink'].ask({ type: 'close' });
  await procs['proxy-nice0']?.ask({ type: 'close' });
  await procs['proxy-alt']?.ask({ type: 'close' });
  procs.passthrough.proc.send({ type: 'close' });
  procs.framework?.proc.send({ type: 'close' });
  loadgen.proc.send({ type: 'exit' });
  if (pinned) pinSelf(`0-${os.cpus().length - 1}`);
  return { mode, speed, streamsAlone, rows, recorded: closed.recorded, rssAfterLoad };
}

/** A fresh proxy process holding `count` open streams from a very slow sim: its RSS. */
async function measureStreamsMemory({ policy, dir, count }) {
  const { startSimServer } = await import('../../dist/sim/server.js');
  const slowSim = await startSimServer({ policy, tokenDelayMs: 2_000 });
  const proxy = child('proxy', ['--upstream', slowSim.url, '--db', path.join(dir, 'streams.db')]);
  const loadgen = child('loadgen');
  const [info] = await Promise.all([proxy.next(), loadgen.next()]);
  const idleRss = (await proxy.ask({ type: 'rss' })).rss;
  const streamBody = JSON.stringify(agentTurn(true, REQUEST_KB));
  const holding = await loadgen.ask({
    type: 'hold',
    count,
    timeoutMs: 30_000,
    headers: headersFor(streamBody),
    body: streamBody,
    urls: info.secrets.map((secret) => `${info.url}/s/${secret}/v1/chat/completions`),
  });
  let rss = 0;
  let heap = 0;
  for (let i = 0; i < 5; i++) {
    const sample = await proxy.ask({ type: 'rss' });
    rss = Math.max(rss, sample.rss);
    heap = Math.max(heap, sample.heapUsed);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await loadgen.ask({ type: 'release' });
  await proxy.ask({ type: 'close' });
  loadgen.proc.send({ type: 'exit' });
  await slowSim.close();
  return { idleRss, rss, heap, open: holding.open, count };
}

function headersFor(text) {
  return { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
}

async function main() {
  const loadAtStart = os.loadavg()[0];
  const levels = values.levels.split(',').map(Number);
  const tokenDelayMs = Number(values['token-delay-ms']);
  const scale = values.quick ? 0.25 : 1;
  const targets = values.targets.split(',');
  for (const t of targets) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t}: use ${TARGETS.join(', ')}`);
  const canPin = os.cpus().length >= 2 && spawnSync('taskset', ['-p', String(process.pid)]).status === 0;
  const modes = values.modes.split(',').filter((m) => m !== 'pinned' || canPin);
  const policy = { name: 'bench', respond: () => ({ content: ANSWER, toolCalls: [] }) };
  const speeds = values.upstreams.split(',');
  for (const s of speeds) if (!UPSTREAMS.includes(s)) throw new Error(`unknown upstream ${s}: use ${UPSTREAMS.join(', ')}`);
  // lockstep measures no streams (see runMode)
  if (streamsOnly && speeds.includes('lockstep')) speeds.splice(speeds.indexOf('lockstep'), 1);
  if (!speeds.length) throw new Error('--streams-only: lockstep measures no streams; use --upstreams instant, paced or engine');
  const paceTokenMs = Number(values['pace-token-ms']);
  const prefillTokensPerSecond = Number(values['prefill-tokens-per-s']);
  if (!(prefillTokensPerSecond > 0))
    throw new Error(`--prefill-tokens-per-s ${values['prefill-tokens-per-s']}: use a number of prompt tokens a second, above 0`);
  const decodeTokensPerSecond = Number(values['decode-tokens-per-s']);
  if (!(decodeTokensPerSecond > 0)) throw new Error(`--decode-tokens-per-s ${values['decode-tokens-per-s']}: use a number of tokens a second, above 0`);
  const toolMs = Number(values['tool-ms']);
  const pacedCallsPerClient = Number(values['paced-calls-per-client']);
  if (!(pacedCallsPerClient >= 1)) throw new Error(`--paced-calls-per-client ${values['paced-calls-per-client']}: use a whole number, 1 or more`);
  if (values['helper-nice'] !== '' && !/^(1?\d)$/.test(values['helper-nice']))
    throw new Error(`--helper-nice ${values['helper-nice']}: use a whole number from 0 to 19`);
  if (!(Number(values['passthrough-cpu-us']) >= 0))
    throw new Error(`--passthrough-cpu-us ${values['passthrough-cpu-us']}: use a number of microseconds, 0 or more`);
  if (!(toolMs >= 0)) throw new Error(`--tool-ms ${values['tool-ms']}: use a number of milliseconds, 0 or more`);
  const sims = {
    instant: await startTimedSim({ policy, tokenDelayMs }),
    paced: await startTimedSim({ policy, tokenDelayMs: paceTokenMs, paceWholeAnswers: true }),
    engine: await startTimedSim({ policy, tokenDelayMs: paceTokenMs, paceWholeAnswers: true, prefillTokensPerSecond, decodeTokensPerSecond }),
    lockstep: await startTimedSim({ policy, tokenDelayMs: paceTokenMs, paceWholeAnswers: true }),
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-bench-proxy-'));
  const results = [];
  for (const mode of modes) {
    for (const speed of speeds) {
      // a paced call lasts ~0.25 s: at low concurrency nothing queues, so `instant` says all there is
      const speedLevels = speed !== 'instant' ? levels.filter((c) => c >= 16) : levels;
      const skipped = levels.filter((c) => !speedLevels.includes(c));
      if (skipped.length && mode === modes[0])
        console.error(`bench: the ${speed} upstream measures 16 concurrent calls or more; level ${skipped.join(', ')} only with --upstreams instant`);
      if (speedLevels.length)
        results.push(await runMode(mode, { sim: sims[speed], speed, dir, levels: speedLevels, scale, targets, toolMs, pacedCallsPerClient }));
    }
  }
  await Promise.all(Object.values(sims).map((sim) => sim.close()));
  const memory = values['skip-memory'] ? null : await measureStreamsMemory({ policy, dir, count: Number(values.streams) });
  rmSync(dir, { recursive: true, force: true });
  report(results, memory, {
    tokenDelayMs,
    paceTokenMs,
    prefillTokensPerSecond,
    decodeTokensPerSecond,
    promptTokens: await promptTokens(),
    toolMs,
    targets,
    loadAtStart,
  });
}

/**
 * The sim, timing each call it serves from its request's headers to its answer's last byte, keyed by
 * the call id in the user message. A call's latency minus that time is what the path between client
 * and sim (loopback, and the pass-through or proxy) added to it. Paired per call, so the upstream's
 * own jitter (its timers on a busy CPU) cancels out of the added latency instead of swamping its p99.
 */
async function startTimedSim(options) {
  const { buildSimApp } = await import('../../dist/sim/server.js');
  const app = buildSimApp(options);
  const serviceMs = new Map();
  const firstByteMs = new Map();
  const arrivals = new WeakMap();
  const firstWrites = new WeakMap();
  app.addHook('onRequest', async (request, reply) => {
    arrivals.set(request, performance.now());
    // a stream's first body byte leaves in the response's first write (a whole answer is one `end`)
    const raw = reply.raw;
    const write = raw.write;
    raw.write = function firstWrite(...args) {
      raw.write = write;
      firstWrites.set(request, performance.now());
      return write.apply(this, args);
    };
  });
  app.addHook('onResponse', async (request) => {
    const content = request.body?.messages?.[1]?.content;
    const id = typeof content === 'string' ? CALL_ID.exec(content)?.[1] : undefined;
    if (id === undefined) return;
    const arrived = arrivals.get(request);
    serviceMs.set(id, performance.now() - arrived);
    const firstWrite = firstWrites.get(request);
    if (firstWrite !== undefined) firstByteMs.set(id, firstWrite - arrived);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${app.server.address().port}/v1`, serviceMs, firstByteMs, close: () => app.close() };
}

/** The bench request's prompt, in the sim's tokens: what the engine upstream prefills. */
async function promptTokens() {
  const { renderPrompt } = await import('../../dist/sim/chat-template.js');
  const { messages, tools } = agentTurn(true, REQUEST_KB);
  return renderPrompt(messages, tools).length;
}

function report(results, memory, { tokenDelayMs, paceTokenMs, prefillTokensPerSecond, decodeTokensPerSecond, promptTokens, toolMs, targets, loadAtStart }) {
  const f = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));
  const rps = (r) => (r.count / r.wallMs) * 1000;
  // other work on the machine skews every number: the 1-minute load average says how much there was
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; 1-min load average ${loadAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end; streams: ${tokenDelayMs} ms per token; paced non-streamed answers: ${paceTokenMs} ms per token; requests ${(JSON.stringify(agentTurn(false, REQUEST_KB)).length / 1024).toFixed(1)} KB; loopback; ${ROUNDS} interleaved rounds per target`,
  );
  console.log(
    `targets: direct = client → sim; passthrough = BASELINE minimal forwarder (no parsing, no recording); proxy = recording proxy with a SQLite store; proxy-nosink = same proxy, records dropped (diagnostic)${targets.includes('framework') ? '; framework = a fastify forwarder that reads and parses each body as the proxy does, and records nothing (diagnostic)' : ''}${targets.includes('proxy-nice0') ? '; proxy-nice0 = the recording proxy with its helper threads at normal priority (diagnostic)' : ''}${targets.includes('proxy-alt') ? `; proxy-alt = the recording proxy under ${altNodeFlags.join(' ') || 'the same flags'} (diagnostic)` : ''}`,
  );
  const json = {
    machine: `${os.cpus().length} cores`,
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
    tokenDelayMs,
    paceTokenMs,
    prefillTokensPerSecond,
    decodeTokensPerSecond,
    promptTokens,
    toolMs,
    modes: [],
  };
  const prefillMs = (promptTokens / prefillTokensPerSecond) * 1000;
  for (const { mode, speed, streamsAlone, rows, recorded } of results) {
    const upstream = {
      instant: 'instant upstream (CPU stress)',
      paced: `paced upstream (answers take as long as generating them); clients run a tool for ${toolMs} ms on average between calls`,
      engine: `engine upstream (paced as a GPU engine: the first token after the prompt's prefill, ${promptTokens} tokens at ${prefillTokensPerSecond} tokens/s = ${f(prefillMs, 1)} ms; a decode step ${paceTokenMs} ms or the streams decoding / ${decodeTokensPerSecond} tokens/s if longer); clients run a tool for ${toolMs} ms on average between streams`,
      lockstep: 'lockstep upstream (paced, every answer the same length: waves of calls arrive together; worst case)',
    }[speed];
    console.log(
      `\n== ${mode === 'pinned' ? 'pinned: sim + load generator on CPU 0, proxy / pass-through on CPU 1' : 'shared: every process on both CPUs'}; ${upstream} ==`,
    );
    // with the sim saturated (instant), a call's hop includes its wait in the sim's socket queue, which
    // depends on how fast each target feeds the sim: there, added compares end-to-end percentiles
    const paired = speed !== 'instant' && !streamsAlone;
    const added = (r, d) => (paired ? [r.hopP50 - d.hopP50, r.hopP99 - d.hopP99] : [r.p50 - d.p50, r.p99 - d.p99]);
    if (streamsAlone) {
      for (const row of rows)
        console.log(
          `${row.concurrency} concurrent streams, CPU µs per stream (all threads / main thread, and how busy the main thread was): ${targets
            .filter((t) => t !== 'direct')
            .map(
              (t) =>
                `${t} ${f(row.cpuUsPerCall[t], 0)} / ${f(row.mainThreadCpuUsPerCall[t], 0)}, ${f(row.mainThreadBusy[t] == null ? null : 100 * row.mainThreadBusy[t], 0)} %`,
            )
            .join('; ')}`,
        );
    }
    if (!streamsAlone)
      console.log("non-streaming (ms): p50, p99 = end to end; hop = a call's latency minus the time the sim spent serving it (paired per call);");
    if (!streamsAlone)
      console.log(
        `  added = ${paired ? "hop − direct's hop" : "end to end − direct's (the sim is saturated)"}, at the same percentile; thr = throughput / direct; cpu = server process CPU per call, all threads; main = its main (serving) thread alone`,
      );
    if (!streamsAlone) console.log('conc  target          p50     p99   req/s  err | hop p50 hop p99 |  +p50    +p99    thr   cpu µs  main µs');
    const modeJson = { mode, speed, recorded, levels: [] };
    for (const row of streamsAlone ? [] : rows) {
      const d = row.whole.direct;
      for (const target of targets) {
        const r = row.whole[target];
        if (!r) continue;
        const [added50, added99] = d ? added(r, d) : [];
        const vs = target === 'direct' || !d ? '' : `${f(added50).padStart(6)}  ${f(added99).padStart(6)}  ${f((rps(r) / rps(d)) * 100, 0).padStart(4)} %`;
        const hops = `${f(r.hopP50).padStart(7)} ${f(r.hopP99).padStart(7)}`;
        console.log(
          `${String(row.concurrency).padStart(4)}  ${target.padEnd(13)} ${f(r.p50).padStart(6)}  ${f(r.p99).padStart(6)}  ${f(rps(r), 0).padStart(6)}  ${String(r.errors).padStart(3)} | ${hops} | ${vs.padEnd(24)}  ${f(row.cpuUsPerCall[target], 0).padStart(6)}  ${f(row.mainThreadCpuUsPerCall[target], 0).padStart(7)}`,
        );
      }
    }
    for (const row of rows) {
      const per = streamsAlone ? 'stream' : 'call';
      console.log(
        `${row.concurrency} concurrent, per ${per}: main thread's system time µs / minor page faults / context switches (all threads): ${targets
          .filter((t) => t !== 'direct')
          .map((t) => `${t} ${f(row.mainThreadSystemUsPerCall[t], 0)} / ${f(row.minorFaultsPerCall[t], 1)} / ${f(row.contextSwitchesPerCall[t], 1)}`)
          .join('; ')}`,
      );
    }
    const streamed = speed !== 'lockstep';
    const arrivals =
      speed === 'instant'
        ? 'each client streams again at once: streams start in waves, a worst case'
        : `each client runs a tool for ${toolMs} ms on average between streams`;
    // Paired as the non-streamed hop is: a stream's TTFB minus the sim's own time from its request to its
    // first write. The unpaired ratio carries the sim's queueing, which differs from round to round by more
    // than the path adds (±10 ms at 64 paced streams on this machine, for the forwarder as for the proxy).
    const streamPaired = speed !== 'instant';
    if (streamed)
      console.log(
        `streaming p50 (ms; ${arrivals}; first token after ${speed === 'instant' ? tokenDelayMs : paceTokenMs} ms${speed === 'engine' ? ` or more + the prefill, ${f(prefillMs, 1)} ms` : ''}): TTFB = first body byte, TTFT = first content token; ratio = target / direct, added = target − direct`,
      );
    if (streamed && streamPaired)
      console.log(
        "  TTFB hop = a stream's TTFB minus the sim's time from its request to its first write (paired per stream); +hop = hop − direct's hop; paired = (direct's TTFB + hop added) / direct's TTFB",
      );
    if (streamed)
      console.log(
        `conc  target         TTFB    TTFT   TTFT p99  TTFB ratio  TTFT ratio  TTFB added  errors${streamPaired ? '  TTFB hop    +hop  paired' : ''}`,
      );
    for (const row of streamed ? rows : []) {
      const d = row.stream.direct;
      for (const target of targets) {
        const r = row.stream[target];
        if (!r) continue;
        const ratios =
          target === 'direct' || !d
            ? ''.padEnd(34)
            : `${f(r.ttfbP50 / d.ttfbP50).padStart(10)}  ${f(r.ttftP50 / d.ttftP50).padStart(10)}  ${f(r.ttfbP50 - d.ttfbP50).padStart(10)}`;
        const hop = !streamPaired
          ? ''
          : `  ${f(r.ttfbHopP50).padStart(8)}${target === 'direct' || !d ? '' : `  ${f(ttfbHopAdded(r, d)).padStart(6)}  ${f(pairedTtfbRatio(r, d)).padStart(6)}`}`;
        console.log(
          `${String(row.concurrency).padStart(4)}  ${target.padEnd(13)} ${f(r.ttfbP50).padStart(5)}  ${f(r.ttftP50).padStart(6)}  ${f(r.ttftP99).padStart(8)}  ${ratios}  ${String(r.errors).padStart(6)}${hop}`,
        );
      }
    }
    // direct streams in every round too: a target's TTFB minus direct's in the same round shows how much of the gap is noise
    const ttfbAddedByRound = (row, target) =>
      row.stream[target].ttfbP50ByRound.map((x, i) =>
        x === null || row.stream.direct?.ttfbP50ByRound[i] == null ? null : x - row.stream.direct.ttfbP50ByRound[i],
      );
    const signed = (x) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${f(x)}`);
    const hopAddedByRound = (row, target) =>
      row.stream[target].ttfbHopP50ByRound.map((x, i) =>
        x === null || row.stream.direct?.ttfbHopP50ByRound[i] == null ? null : x - row.stream.direct.ttfbHopP50ByRound[i],
      );
    for (const row of streamed && targets.includes('direct') ? rows : []) {
      const others = targets.filter((t) => t !== 'direct' && row.stream[t]);
      console.log(
        `TTFB added by round, ${row.concurrency} concurrent (ms): ${others.map((t) => `${t} ${ttfbAddedByRound(row, t).map(signed).join(' / ')}`).join('; ')}`,
      );
      if (streamPaired)
        console.log(
          `TTFB hop added by round, ${row.concurrency} concurrent (ms): ${others.map((t) => `${t} ${hopAddedByRound(row, t).map(signed).join(' / ')}`).join('; ')}`,
        );
    }
    for (const row of rows) {
      const d = row.whole.direct;
      const level = {
        concurrency: row.concurrency,
        cpuUsPerCall: row.cpuUsPerCall,
        mainThreadCpuUsPerCall: row.mainThreadCpuUsPerCall,
        mainThreadBusy: row.mainThreadBusy,
        mainThreadSystemUsPerCall: row.mainThreadSystemUsPerCall,
        minorFaultsPerCall: row.minorFaultsPerCall,
        contextSwitchesPerCall: row.contextSwitchesPerCall,
        targets: {},
      };
      for (const target of targets) {
        const w = row.whole[target];
        const st = row.stream[target];
        if (!w) continue;
        level.targets[target] = {
          p50: w.p50,
          p99: w.p99,
          hop: w.hopPercentiles,
          hopP99ByRound: w.hopP99ByRound,
          rps: rps(w),
          errors: w.errors + st.errors,
          ...(d && target !== 'direct'
            ? {
                addedP50: added(w, d)[0],
                addedP99: added(w, d)[1],
                endToEndAddedP50: w.p50 - d.p50,
                endToEndAddedP99: w.p99 - d.p99,
                throughputRatio: rps(w) / rps(d),
                ttfbRatio: st.ttfbP50 / row.stream.direct.ttfbP50,
                ttfbAddedMs: st.ttfbP50 === null ? null : st.ttfbP50 - row.stream.direct.ttfbP50,
                ttfbAddedMsByRound: streamed ? ttfbAddedByRound(row, target) : [],
                ttftRatio: st.ttftP50 / row.stream.direct.ttftP50,
                ...(streamed && streamPaired
                  ? {
                      ttfbHopAddedMs: ttfbHopAdded(st, row.stream.direct),
                      ttfbRatioPaired: pairedTtfbRatio(st, row.stream.direct),
                      ttfbHopAddedMsByRound: hopAddedByRound(row, target),
                    }
                  : {}),
              }
            : {}),
          ttfbP50: st.ttfbP50,
          ttftP50: st.ttftP50,
          ttfbHopP50: st.ttfbHopP50,
          ttfbHopP99: st.ttfbHopP99,
        };
      }
      modeJson.levels.push(level);
    }
    // a p99 of a few thousand calls rests on a handful of stalls (GC, the VM): its spread across rounds says how far to trust it
    for (const row of paired ? rows : [])
      console.log(
        `hop p99 by round, ${row.concurrency} concurrent (ms): ${targets.map((t) => `${t} ${row.whole[t].hopP99ByRound.map((x) => f(x, 1)).join(' / ')}`).join('; ')}`,
      );
    console.log(`calls recorded by the proxy: ${recorded}`);
    json.modes.push(modeJson);
  }
  if (memory) {
    const mb = (bytes) => bytes / 2 ** 20;
    console.log(
      `\nproxy memory: idle ${f(mb(memory.idleRss), 0)} MB RSS; with ${memory.open}/${memory.count} open streams ${f(mb(memory.rss), 0)} MB RSS (heap ${f(mb(memory.heap), 0)} MB); target ≤ 200 MB`,
    );
    json.memory = { idleRssMb: mb(memory.idleRss), streamsOpen: memory.open, streamsRssMb: mb(memory.rss), heapMb: mb(memory.heap) };
  }
  console.log(JSON.stringify(json));
}

if (values.role === 'proxy') await proxyRole();
else if (values.role === 'passthrough') await passthroughRole();
else if (values.role === 'framework') await frameworkRole();
else if (values.role === 'loadgen') loadgenRole();
else await main();
