#!/usr/bin/env node
// The recording proxy's byte scans, timed on the proxy bench's own agent turn and the sim's answer to
// it, each next to JSON.parse of the same bytes (the baseline, measured in the same run):
//   - the upstream request: the harness's bytes with the proxy's fields set (serving thread);
//   - the whole answer cut for the harness, engine fields and unasked logprobs left out (serving thread),
//     and the parse-and-strip it stands in for;
//   - the answer's token ids and the rest, as the store's writing thread reads them;
//   - the sim's stream of the same answer: its events cut for the harness (serving thread), against the
//     parse, capture and translation of each event they stand in for, and the stream as the writing
//     thread reads it (tokens and assembled response), each next to JSON.parse of every event.
// `--alt-dist DIR` times another build's functions in the same rounds (e.g. a worktree of an earlier commit).
//
// usage: node scripts/bench/byte-scans.mjs [--rounds 7] [--calls 5000] [--request-kb 4] [--alt-dist DIR]
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ANSWER, agentTurn } from './agent-turn.mjs';
import { benchArgs } from './bench-args.mjs';

const { values } = benchArgs(import.meta.url, {
  options: {
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '5000' },
    'request-kb': { type: 'string', default: '4' },
    'alt-dist': { type: 'string', default: '' },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const requestKb = Number(values['request-kb']);
/** A stream is ~50 events: fewer of them make a round as long. */
const streamCalls = Math.max(1, Math.round(calls / 20));
for (const [name, value] of [
  ['rounds', rounds],
  ['calls', calls],
  ['request-kb', requestKb],
]) {
  if (!(value > 0)) throw new Error(`--${name} ${values[name]}: use a number above 0`);
}

/** The first of a module's paths (this layout, then earlier ones) that the build has, or undefined. */
function modulePath(dist, ...candidates) {
  return candidates.find((file) => existsSync(path.join(dist, file)));
}

async function build(dist) {
  const engineFields = modulePath(dist, 'proxy/calls/engine-fields.js', 'proxy/engine-fields.js');
  if (!engineFields) {
    throw new Error(`${dist}: not an OpenForge build (no proxy/calls/engine-fields.js); pass a dist/ folder after \`npm run build\``);
  }
  const url = (file) => new URL(file, `${pathToFileURL(path.resolve(dist)).href}/`).href;
  const load = async (...candidates) => {
    const file = modulePath(dist, ...candidates);
    return file ? import(url(file)) : {};
  };
  const { withoutEngineFields, stripEngineFields: stripInProxy } = await import(url(engineFields));
  // some builds keep the parsed strip beside the byte cut, others in engine-wire
  const stripEngineFields = stripInProxy ?? (await load('engine-wire/engine-fields.js')).stripEngineFields;
  const { upstreamBodyBytes } = await load('proxy/upstream/engine-request.js');
  const { parseAnswer } = await load('engine-wire/answer-json.js');
  const { TokenCapture } = await load('engine-wire/token-capture.js');
  const { ChatStreamTranslator } = await load('proxy/protocols/chat/stream.js', 'proxy/protocols/chat-stream.js');
  const { UpstreamChunkParser, UpstreamEventReader } = await load('engine-wire/sse-chunks.js', 'proxy/upstream/sse-chunks.js');
  // builds without a cut of the stream's events or a record-side stream reading leave those undefined
  const cut = await load('proxy/protocols/chat/event-cut.js', 'proxy/protocols/chat-event-cut.js');
  const streamed = await load('engine-wire/streamed-answer.js');
  return {
    withoutEngineFields,
    stripEngineFields,
    upstreamBodyBytes,
    parseAnswer,
    TokenCapture,
    ChatStreamTranslator,
    UpstreamChunkParser,
    UpstreamEventReader,
    cutChatEvent: cut.cutChatEvent,
    readStreamedAnswer: streamed.readStreamedAnswer,
  };
}

const here = await build(new URL('../../dist', import.meta.url).pathname);
const alt = values['alt-dist'] ? await build(values['alt-dist']) : undefined;

const { startSimServer } = await import('../../dist/sim/server.js');
const sim = await startSimServer({ policy: { name: 'bench', respond: () => ({ content: ANSWER, toolCalls: [] }) } });
const request = agentTurn(false, requestKb);
const requestBytes = Buffer.from(JSON.stringify(request));
const asked = await fetch(`${sim.url}/chat/completions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ...request, logprobs: true, return_token_ids: true }),
});
const answerBytes = Buffer.from(await asked.arrayBuffer());
if (!asked.ok) throw new Error(`the sim answered ${asked.status}: ${answerBytes.toString()}`);
const streamedAsk = await fetch(`${sim.url}/chat/completions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ...request, stream: true, logprobs: true, return_token_ids: true, stream_options: { include_usage: true } }),
});
const streamBytes = Buffer.from(await streamedAsk.arrayBuffer());
await sim.close();
if (!streamedAsk.ok) throw new Error(`the sim answered ${streamedAsk.status}: ${streamBytes.toString()}`);
// the stream as the proxy reads it: one socket read per event
const streamParts = streamBytes
  .toString('utf8')
  .split(/(?<=\n\n)/)
  .map((event) => Buffer.from(event));
const streamData = streamParts
  .map((part) =>
    part
      .toString('utf8')
      .replace(/^data: /, '')
      .trimEnd(),
  )
  .filter((data) => data !== '[DONE]');

const view = { logprobs: false };
const baselines = {
  'JSON.parse(request)': () => JSON.parse(requestBytes.toString('utf8')),
  'JSON.parse(answer)': () => JSON.parse(answerBytes.toString('utf8')),
  'JSON.parse(stream events)': () => streamData.map((data) => JSON.parse(data)),
};
const wants = { logprobs: false, usage: false };
const scans = (fns) => ({
  'upstream request bytes': () => fns.upstreamBodyBytes(request, requestBytes, 'vllm', undefined),
  'answer cut for the harness': () => fns.withoutEngineFields(answerBytes, view),
  'answer parsed and stripped': () => JSON.stringify(fns.stripEngineFields(JSON.parse(answerBytes.toString('utf8')), view)),
  // parseAnswer takes its bytes over (the id list is cut out in place): each call gets a copy
  'answer read by the writer (+copy)': () => fns.parseAnswer(Buffer.from(answerBytes)),
  'stream parsed and translated': () => {
    const parser = new fns.UpstreamChunkParser();
    const capture = new fns.TokenCapture();
    const translator = new fns.ChatStreamTranslator(wants);
    const sent = [];
    for (const part of streamParts) {
      parser.feed(part, (chunk) => {
        if (typeof chunk === 'symbol') return;
        capture.addChunk(chunk);
        for (const event of translator.push(chunk)) sent.push(`data: ${event.data}\n\n`);
      });
    }
    return sent;
  },
  ...(fns.cutChatEvent && {
    'stream cut for the harness': () => {
      const reader = new fns.UpstreamEventReader();
      const sent = [];
      for (const part of streamParts) {
        reader.feed(part, (data) => {
          if (typeof data === 'symbol') return;
          const cut = fns.cutChatEvent(data, wants);
          if (cut?.text) sent.push(`data: ${cut.text}\n\n`);
        });
      }
      return sent;
    },
  }),
  ...(fns.readStreamedAnswer && {
    'stream read by the writer': () => fns.readStreamedAnswer({ bytes: streamBytes, view, relayError: null }),
  }),
});
const BASELINE_OF = {
  'upstream request bytes': 'JSON.parse(request)',
  'answer cut for the harness': 'JSON.parse(answer)',
  'answer parsed and stripped': 'JSON.parse(answer)',
  'answer read by the writer (+copy)': 'JSON.parse(answer)',
  'stream parsed and translated': 'JSON.parse(stream events)',
  'stream cut for the harness': 'JSON.parse(stream events)',
  'stream read by the writer': 'JSON.parse(stream events)',
};
const cases = { ...baselines, ...scans(here), ...(alt ? prefixed('alt: ', scans(alt)) : {}) };

function prefixed(prefix, record) {
  return Object.fromEntries(Object.entries(record).map(([name, fn]) => [`${prefix}${name}`, fn]));
}

let kept = 0;
/** µs per call, the best of `rounds` interleaved rounds (the least disturbed by other work on the machine). */
const best = Object.fromEntries(Object.keys(cases).map((name) => [name, Infinity]));
for (const fn of Object.values(cases)) for (let i = 0; i < 500; i++) kept += fn() ? 1 : 0;
for (let round = 0; round < rounds; round++) {
  for (const [name, fn] of Object.entries(cases)) {
    const n = name.includes('stream') ? streamCalls : calls;
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) kept += fn() ? 1 : 0;
    const us = Number(process.hrtime.bigint() - started) / n / 1000;
    best[name] = Math.min(best[name], us);
  }
}

console.log(
  `request ${requestBytes.length} bytes, answer ${answerBytes.length} bytes, its stream ${streamBytes.length} bytes in ${streamData.length} events; best of ${rounds} rounds of ${calls} calls (streams: ${streamCalls}); Node ${process.version}`,
);
for (const [name, us] of Object.entries(best)) {
  const baseline = BASELINE_OF[name.replace(/^alt: /, '')];
  const ratio = baseline ? ` ${(us / best[baseline]).toFixed(2)}× ${baseline}` : ' (baseline)';
  console.log(`${name.padEnd(40)} ${us.toFixed(2).padStart(8)} µs${ratio}`);
}
if (kept === 0) throw new Error('no case returned anything');
