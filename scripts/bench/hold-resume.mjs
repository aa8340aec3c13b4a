#!/usr/bin/env node
// Pause-to-resume in hold mode, against a baseline measured in the same run: how long after
// `/control/resume` the last of N held model calls is answered, over how long N fresh calls started
// together take to be answered at the same load (the same proxy, the same sim, the same N).
//   fresh — BASELINE: N calls sent at once to a serving proxy; the time from sending them to the last answer;
//   held  — N calls sent to a proxy paused in mode hold; once all N are held, resume; the time from the
//           resume to the last answer.
// The proxy records into an in-memory sink; the sim is paced as an engine (--token-delay-ms per chunk,
// non-streamed answers as long as their stream, decode throughput --decode-tokens-per-s), in this process;
// half the calls stream. Rounds alternate fresh and held; the medians and their ratio are printed (target ≤ 1.2).
//   node scripts/bench/hold-resume.mjs [--calls 64] [--rounds 7] [--token-delay-ms 5] [--decode-tokens-per-s 12500]
// Needs `npm run build`. Loopback only. Prints a table and a final JSON line.
import { benchArgs } from './bench-args.mjs';

const { values } = benchArgs(import.meta.url, {
  options: {
    calls: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '7' },
    'token-delay-ms': { type: 'string', default: '5' },
    'decode-tokens-per-s': { type: 'string', default: '12500' },
  },
});
const N = Number(values.calls);
const ROUNDS = Number(values.rounds);

const { startSimServer } = await import('../../dist/sim/server.js');
const { startProxy } = await import('../../dist/proxy/server.js');

const ANSWER = 'The answer is forty-two, and here is why it holds for every case we looked at. '.repeat(3);
const sim = await startSimServer({
  policy: { name: 'bench', respond: () => ({ content: ANSWER, toolCalls: [] }) },
  tokenDelayMs: Number(values['token-delay-ms']),
  paceWholeAnswers: true,
  decodeTokensPerSecond: Number(values['decode-tokens-per-s']),
});
const ADMIN = 'bench-admin-token';
const proxy = await startProxy({
  upstreams: [{ url: sim.url, kind: 'vllm' }],
  sessions: { bySecret: (secret) => ({ rolloutId: secret, runId: 'bench', taskId: 'bench', secret }) },
  sink: { record: async () => undefined },
  adminToken: ADMIN,
  keepaliveMs: 1_000,
});

const control = (path, body) =>
  fetch(`${proxy.url}/control/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => res.json());

let nextRollout = 0;
/** One model call of its own rollout; resolves with the time its answer was read whole. */
async function call(i) {
  const secret = `bench-${nextRollout++}`;
  const res = await fetch(`${proxy.url}/s/${secret}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'policy', stream: i % 2 === 1, messages: [{ role: 'user', content: `question ${i}` }] }),
  });
  const text = await res.text();
  const whole = i % 2 === 1 ? text.trimEnd().endsWith('data: [DONE]') : text.includes('forty-two');
  if (res.status !== 200 || !whole) throw new Error(`call ${i}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  return performance.now();
}

async function fresh() {
  const start = performance.now();
  const ends = await Promise.all(Array.from({ length: N }, (_, i) => call(i)));
  return Math.max(...ends) - start;
}

async function held() {
  await control('pause', { mode: 'hold', max_hold_sec: 600 });
  const answers = Promise.all(Array.from({ length: N }, (_, i) => call(i)));
  while ((await control('status')).held < N) await new Promise((r) => setTimeout(r, 10));
  const resumed = performance.now();
  await control('resume', {});
  const ends = await answers;
  return Math.max(...ends) - resumed;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await fresh(); // warm-up
const freshMs = [];
const heldMs = [];
for (let r = 0; r < ROUNDS; r++) {
  freshMs.push(await fresh());
  heldMs.push(await held());
}
const result = {
  calls: N,
  rounds: ROUNDS,
  fresh_ms_median: Math.round(median(freshMs)),
  held_resume_to_last_ms_median: Math.round(median(heldMs)),
  ratio: Number((median(heldMs) / median(freshMs)).toFixed(3)),
  load1: (await import('node:os')).loadavg()[0],
};
console.log(`${N} calls, ${ROUNDS} rounds each (median)`);
console.log(`fresh (baseline): sent together → last answered   ${result.fresh_ms_median} ms`);
console.log(`held: resume → last held call answered             ${result.held_resume_to_last_ms_median} ms`);
console.log(`ratio held / fresh                                  ${result.ratio}`);
console.log(JSON.stringify(result));
await proxy.close();
await sim.close();
