#!/usr/bin/env node
// Token fidelity under real model families, chat mode against token-in/token-out, and token-in's proxy CPU cost.
//   node scripts/bench/fidelity.mjs [--harnesses forge-agent,qwen-code,claude-code,codex,openclaw,opencode]
//     [--families qwen3,deepseek_v3] [--modes chat,token_in] [--suite envs/claw-basic] [--tasks a,b (default: all)]
//     [--per-task 1] [--concurrency 4]
//     [--cpu-concurrency 64] [--cpu-rounds 5] [--cpu-steps 8] [--no-runs] [--no-cpu]
// Runs: every harness on the suite under `sim:oracle@<family>`, once per mode; from each run's store: policy
// calls after each rollout's first, breaks per 100 of them by cause, samples per rollout, the share of
// sampled completion tokens that reach an exported sample with mask 1, and the mean reward.
// CPU: the proxy alone in a process of its own in front of the sim (another process), 64 harness-like
// conversations at once through it (each an oracle episode of --cpu-steps tool calls, its history sent back
// without reasoning), once in chat mode and once in token-in mode per round, alternating; the proxy
// process's CPU per call, median over rounds, and token-in's added CPU per call and ratio to chat mode.
// Needs `npm run build` and the images (`npm run setup`; real harnesses' layers are built on first use).
// Prints a table per part and a JSON line.
import { fork } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './bench-args.mjs';

const dist = path.resolve(import.meta.dirname, '../../dist');
const role = process.env.OPENFORGE_FIDELITY_ROLE;
if (role) await child(role);
else await main();

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      harnesses: { type: 'string', default: 'forge-agent,qwen-code,claude-code,codex,openclaw,opencode' },
      families: { type: 'string', default: 'qwen3,deepseek_v3' },
      modes: { type: 'string', default: 'chat,token_in' },
      suite: { type: 'string', default: 'envs/claw-basic' },
      tasks: { type: 'string', default: '' },
      'per-task': { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '4' },
      'cpu-concurrency': { type: 'string', default: '64' },
      'cpu-rounds': { type: 'string', default: '5' },
      'cpu-steps': { type: 'string', default: '8' },
      'no-runs': { type: 'boolean', default: false },
      'no-cpu': { type: 'boolean', default: false },
    },
  });
  const list = (v) => v.split(',').filter(Boolean);
  const out = { runs: [], cpu: null };
  if (!values['no-runs']) {
    for (const family of list(values.families)) {
      for (const harness of list(values.harnesses)) {
        for (const mode of list(values.modes)) {
          const suite = path.resolve(values.suite);
          const figures = await fidelityRun({
            family,
            harness,
            tokenIn: mode === 'token_in',
            tasks: values.tasks ? list(values.tasks).map((t) => path.join(suite, t)) : suite,
            perTask: Number(values['per-task']),
            concurrency: Number(values.concurrency),
          });
          out.runs.push({ family, harness, mode, ...figures });
          printRun(out.runs.at(-1));
        }
      }
    }
  }
  if (!values['no-cpu']) {
    out.cpu = await cpuCost({ concurrency: Number(values['cpu-concurrency']), rounds: Number(values['cpu-rounds']), steps: Number(values['cpu-steps']) });
    printCpu(out.cpu);
  }
  console.log(JSON.stringify(out));
}

/** One run of a harness on the suite, and its fidelity figures from the store. */
async function fidelityRun({ family, harness, tokenIn, tasks, perTask, concurrency }) {
  const { resolveRunConfig } = await import(path.join(dist, 'config/run.js'));
  const { executeRun } = await import(path.join(dist, 'rollout/run.js'));
  const { openRunSource } = await import(path.join(dist, 'trajectory/run-source.js'));
  const { runSamples } = await import(path.join(dist, 'trajectory/run-samples.js'));
  const output = mkdtempSync(path.join(os.tmpdir(), `of-fidelity-${harness}-`));
  const config = resolveRunConfig(
    {
      tasks,
      harness,
      model: { upstream: `sim:oracle@${family}`, name: 'policy', ...(tokenIn ? { token_in: true } : {}) },
      rollouts_per_task: perTask,
      // a real harness's own start (OpenClaw, opencode) takes minutes on a busy machine; it says nothing about fidelity
      timeouts: { agent_sec: 900 },
      concurrency,
      output,
    },
    path.join(output, 'run.yaml'),
  );
  const t0 = performance.now();
  const summary = await executeRun(config);
  const wallSec = (performance.now() - t0) / 1000;
  const source = await openRunSource(output);
  const breaks = {};
  let policyCalls = 0,
    rollouts = 0,
    samples = 0,
    maskOne = 0,
    sampled = 0,
    rewards = 0;
  try {
    for await (const result of runSamples(source, source.rollouts)) {
      if ('corrupt' in result) throw result.corrupt;
      const calls = (await source.store.listCalls(result.rollout.id)).filter((c) => c.label === 'policy' && c.status === 200 && c.completionTokenIds);
      if (calls.length === 0) continue;
      rollouts++;
      rewards += result.rollout.reward ?? 0;
      policyCalls += result.stats.policyCalls;
      for (const [reason, n] of Object.entries(result.stats.breaks)) breaks[reason] = (breaks[reason] ?? 0) + n;
      samples += result.samples.length;
      for (const s of result.samples) for (const m of s.response_mask) maskOne += m;
      for (const c of calls) sampled += c.completionTokenIds.length;
    }
  } finally {
    await source.store.close();
  }
  const after = policyCalls - rollouts;
  const breakCount = Object.values(breaks).reduce((a, b) => a + b, 0);
  return {
    rollouts,
    meanReward: rollouts ? rewards / rollouts : 0,
    errors: summary.errors ?? null,
    policyCalls,
    callsAfterFirst: after,
    breaksPer100: after ? (100 * breakCount) / after : 0,
    breaks,
    samplesPerRollout: rollouts ? samples / rollouts : 0,
    maskOneShare: sampled ? maskOne / sampled : 0,
    wallSec,
  };
}

function printRun(r) {
  const causes =
    Object.entries(r.breaks)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none';
  console.log(
    `${r.family.padEnd(11)} ${r.harness.padEnd(12)} ${r.mode.padEnd(8)} rollouts ${r.rollouts} · reward ${r.meanReward.toFixed(2)} · calls after first ${r.callsAfterFirst} · ` +
      `breaks/100 ${r.breaksPer100.toFixed(1)} (${causes}) · samples/rollout ${r.samplesPerRollout.toFixed(2)} · mask-1 share ${(100 * r.maskOneShare).toFixed(2)}% · ${r.wallSec.toFixed(0)} s`,
  );
}

/** The proxy's CPU per call at `concurrency` conversations, chat mode and token-in alternating round by round. */
async function cpuCost({ concurrency, rounds, steps }) {
  const suite = mkdtempSync(path.join(os.tmpdir(), 'of-fidelity-cpu-'));
  const task = path.join(suite, 'steps');
  for (const dir of ['tests', 'solution', 'environment']) mkdirSync(path.join(task, dir), { recursive: true });
  writeFileSync(path.join(task, 'task.toml'), '[task]\nname = "steps"\n');
  writeFileSync(path.join(task, 'instruction.md'), 'Run the steps of the reference solution, one at a time.\n');
  writeFileSync(path.join(task, 'tests', 'test.sh'), '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n');
  writeFileSync(path.join(task, 'environment', 'Dockerfile'), 'FROM openforge/workspace\n');
  writeFileSync(
    path.join(task, 'solution', 'solve.sh'),
    ['#!/bin/bash', ...Array.from({ length: steps }, (_, i) => `# step: part ${i + 1}\necho "part ${i + 1} of the work: écrit ✓" >> /workspace/out.txt`)].join(
      '\n',
    ) + '\n',
  );
  const sim = await start('sim', { suite });
  const proxies = { chat: await start('proxy', { upstream: sim.url, tokenIn: '' }), token_in: await start('proxy', { upstream: sim.url, tokenIn: '1' }) };
  const perCall = { chat: [], token_in: [] };
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const mode of round % 2 ? ['chat', 'token_in'] : ['token_in', 'chat']) {
        const proxy = proxies[mode];
        const before = await proxy.ask('cpu');
        const calls = await conversations(proxy.url, concurrency, `${mode}-${round}`);
        const after = await proxy.ask('cpu');
        // round 0 warms both up (compilation, the family's first renders)
        if (round > 0) perCall[mode].push((after.cpuMs - before.cpuMs) / calls);
      }
    }
  } finally {
    for (const p of [sim, proxies.chat, proxies.token_in]) p.child.kill();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const chat = median(perCall.chat);
  const tokenIn = median(perCall.token_in);
  return { concurrency, rounds, steps, chatCpuMsPerCall: chat, tokenInCpuMsPerCall: tokenIn, addedMsPerCall: tokenIn - chat, ratio: tokenIn / chat, perCall };
}

function printCpu(c) {
  console.log(
    `proxy CPU per call at ${c.concurrency} concurrent calls (median of ${c.rounds} rounds, ${c.steps}-step episodes): chat ${c.chatCpuMsPerCall.toFixed(3)} ms · ` +
      `token-in ${c.tokenInCpuMsPerCall.toFixed(3)} ms · added ${c.addedMsPerCall.toFixed(3)} ms · ratio ${c.ratio.toFixed(2)}×`,
  );
}

/** `concurrency` oracle episodes through the proxy as a harness runs them: the answer sent back without reasoning, a tool result per call. */
async function conversations(url, concurrency, tag) {
  let calls = 0;
  const tool = {
    type: 'function',
    function: {
      name: 'bash',
      description: 'Run a bash command.',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  };
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const secret = `${tag}-${i}`;
      const messages = [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Run the steps of the reference solution, one at a time.' },
      ];
      for (;;) {
        const response = await fetch(`${url}/s/${secret}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-openforge-task': 'steps' },
          body: JSON.stringify({ model: 'policy', messages, tools: [tool], stream: true }),
        });
        const message = { role: 'assistant', content: '', tool_calls: [] };
        const text = await response.text();
        calls++;
        for (const line of text.split('\n')) {
          if (!line.startsWith('data: {')) continue;
          const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {};
          message.content += delta.content ?? '';
          for (const call of delta.tool_calls ?? []) message.tool_calls[call.index] = { id: call.id, type: 'function', function: call.function };
        }
        if (message.tool_calls.length === 0) break;
        messages.push({ role: 'assistant', content: message.content.trim() || null, tool_calls: message.tool_calls });
        for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok\n' });
      }
    }),
  );
  return calls;
}

/** A child process of this script in a role; `ask(type)` sends a message and waits for its answer. */
async function start(childRole, env) {
  const child = fork(import.meta.filename, [], {
    env: { ...process.env, OPENFORGE_FIDELITY_ROLE: childRole, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [`OPENFORGE_FIDELITY_${k}`, v])) },
  });
  const url = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.url));
    child.once('exit', (code) => reject(new Error(`${childRole} exited with ${code}`)));
  });
  const ask = (type) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send({ type });
    });
  return { child, url, ask };
}

async function child(which) {
  process.on('SIGTERM', () => process.exit(0));
  const env = (k) => process.env[`OPENFORGE_FIDELITY_${k}`];
  if (which === 'sim') {
    const { loadTasks } = await import(path.join(dist, 'config/task.js'));
    const { startSimServer } = await import(path.join(dist, 'sim/server.js'));
    const sim = await startSimServer({ policy: { kind: 'oracle', family: 'qwen3' }, tasks: loadTasks(env('suite')) });
    process.send({ url: sim.url });
  } else {
    const { startProxy } = await import(path.join(dist, 'proxy/server.js'));
    const { tokenInOptions } = await import(path.join(dist, 'proxy/token-in/token-in-setup.js'));
    const upstream = env('upstream');
    const tokenIn = env('tokenIn')
      ? await tokenInOptions({
          upstreams: [{ url: upstream, sim: { family: 'qwen3' } }],
          kind: 'vllm',
          options: { tokenIn: '--token-in', tokenizer: '--tokenizer' },
        })
      : undefined;
    const proxy = await startProxy({
      upstreams: [{ url: upstream, kind: 'vllm' }],
      sessions: { bySecret: (secret) => ({ rolloutId: secret, runId: 'bench', taskId: 'steps', secret }) },
      sink: { record: async () => undefined },
      tokenIn,
      family: 'qwen3',
    });
    process.send({ url: proxy.url });
  }
  process.on('message', (m) => {
    if (m.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send({ cpuMs: (user + system) / 1000 });
    }
  });
}
