#!/usr/bin/env node
// forge-agent: OpenForge's small reference harness. A tool-calling loop over
// OpenAI Chat Completions with bash / read_file / write_file tools.
//
// It is bundled into one file (scripts/build-agents.mjs) that is copied alone into a container whose
// Node may be Debian bookworm's 18.x: use nothing newer than Node 18.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MODEL_ENV_USAGE, positiveNumber, readAgentOptions, runAgentCommand, runIfEntryPoint } from './kit/agent-cli.js';
import type { AgentResult, AgentRunOptions } from './kit/agent-run.js';
import { callModel, ModelApiError, type AssistantMessage, type ModelReply, type RetryListener, type ToolCall } from './kit/chat-client.js';
import { toolArguments } from './kit/tool-arguments.js';
import { Transcript } from './kit/transcript.js';

export type { AgentResult } from './kit/agent-run.js';
export type { ToolCall } from './kit/chat-client.js';

export interface AgentOptions extends AgentRunOptions {
  workdir?: string;
  stream?: boolean;
  toolTimeoutSec?: number;
}

type Message = { role: 'system' | 'user'; content: string } | AssistantMessage | { role: 'tool'; tool_call_id: string; content: string };

const SYSTEM_PROMPT = `You are an autonomous agent working in a Linux container. Your working directory is {workdir}.
Use the provided tools (bash, read_file, write_file) to inspect the environment and carry out the task; do not just describe what to do.
When the task is done, stop calling tools and reply with a short final answer.`;

const MAX_TOOL_OUTPUT = 16 * 1024;
const MAX_READ_BYTES = 64 * 1024;

export const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'bash',
      description:
        'Run a bash command (bash -lc) in the working directory. Returns the exit code and combined stdout/stderr (long output is truncated in the middle).',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', description: 'The command to run.' } },
        required: ['command'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: `Read a text file (at most ${MAX_READ_BYTES / 1024} KB). Relative paths are resolved against the working directory.`,
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Path of the file to read.' } },
        required: ['path'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description:
        'Write content to a file, replacing it if it exists and creating parent directories. Relative paths are resolved against the working directory.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path of the file to write.' },
          content: { type: 'string', description: 'The full new content of the file.' },
        },
        required: ['path', 'content'],
      },
    },
  },
];

// ---------------------------------------------------------------------------
// Tools

/** Keeps the first and last `half` bytes of a stream without buffering all of it. */
class HeadTailBuffer {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  total = 0;

  constructor(private readonly half: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headLen < this.half) {
      const take = chunk.subarray(0, this.half - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tail.length > 1 && this.tailLen - (this.tail[0]?.length ?? 0) >= this.half) {
      this.tailLen -= this.tail.shift()?.length ?? 0;
    }
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const all = Buffer.concat(this.tail);
    const tail = all.subarray(Math.max(0, all.length - this.half));
    const omitted = this.total - this.headLen - tail.length;
    return omitted > 0 ? `${head}\n\n[... ${omitted} bytes omitted ...]\n\n${tail.toString('utf8')}` : head + tail.toString('utf8');
  }
}

export async function runBash(command: string, workdir: string, timeoutSec: number): Promise<string> {
  return new Promise((resolve) => {
    const output = new HeadTailBuffer(MAX_TOOL_OUTPUT / 2);
    // detached: own process group, so a timeout kills the command's children too.
    const child = spawn('bash', ['-lc', command], { cwd: workdir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      child.stdout.destroy();
      child.stderr.destroy();
      const status = timedOut ? `Timed out after ${timeoutSec}s: the command was killed.` : `Exit code: ${code ?? `none (killed by ${signal})`}`;
      resolve(`${status}\n${output.toString()}`);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutSec * 1000);
    child.stdout.on('data', (b: Buffer) => output.push(b));
    child.stderr.on('data', (b: Buffer) => output.push(b));
    child.on('error', (err) => {
      settled = true;
      clearTimeout(timer);
      resolve(`Error: could not run bash: ${err.message}`);
    });
    child.on('close', finish);
    // A background process (`server &`) keeps the pipes open after bash exits:
    // don't wait for it beyond a short grace period for the remaining output.
    child.on('exit', (code, signal) => {
      grace = setTimeout(() => finish(code, signal), 500);
    });
  });
}

function readFileTool(file: string): string {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, MAX_READ_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('utf8');
    return size > MAX_READ_BYTES ? `${text}\n\n[truncated: the file has ${size} bytes, only the first ${MAX_READ_BYTES} are shown]` : text;
  } finally {
    closeSync(fd);
  }
}

function requireString(args: Record<string, unknown>, field: string): string {
  const value = args[field];
  if (typeof value !== 'string') throw new Error(`missing required string argument "${field}"`);
  return value;
}

/** Runs one tool call; every failure becomes an "Error: ..." result for the model. */
export async function executeTool(call: ToolCall, workdir: string, timeoutSec: number): Promise<string> {
  const parsed = toolArguments(call);
  if ('error' in parsed) return parsed.error;
  const { args } = parsed;
  try {
    switch (call.function.name) {
      case 'bash':
        return await runBash(requireString(args, 'command'), workdir, timeoutSec);
      case 'read_file':
        return readFileTool(path.resolve(workdir, requireString(args, 'path')));
      case 'write_file': {
        const file = path.resolve(workdir, requireString(args, 'path'));
        const content = requireString(args, 'content');
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, content);
        return `Wrote ${Buffer.byteLength(content)} bytes to ${file}`;
      }
      default:
        return `Error: unknown tool "${call.function.name}". Available tools: bash, read_file, write_file.`;
    }
  } catch (err) {
    return `Error: ${(err as Error).message}`;
  }
}

// ---------------------------------------------------------------------------
// Loop

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const opts = { ...options, stream: options.stream ?? true };
  const maxTurns = opts.maxTurns ?? 30;
  const workdir = path.resolve(opts.workdir ?? process.cwd());
  const toolTimeoutSec = opts.toolTimeoutSec ?? 120;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const transcript = new Transcript(opts.transcriptPath);
  mkdirSync(workdir, { recursive: true });

  const messages: Message[] = [
    { role: 'system', content: SYSTEM_PROMPT.replace('{workdir}', workdir) },
    { role: 'user', content: opts.instruction },
  ];
  transcript.event('start', {
    model: opts.model ?? 'policy',
    workdir,
    max_turns: maxTurns,
    stream: opts.stream,
    tool_timeout_sec: toolTimeoutSec,
    messages,
  });

  const request = { messages, tools: TOOLS, stream: opts.stream };
  const onRetry =
    (turn: number): RetryListener =>
    ({ attempt, of, delayMs, error }) => {
      log(`[forge-agent] turn ${turn}: ${error.message.slice(0, 200)}; retry ${attempt}/${of} in ${delayMs}ms`);
      transcript.event('error', { turn, error: error.message, status: error.status, retry: attempt, delay_ms: delayMs });
    };

  try {
    for (let turn = 1; turn <= maxTurns; turn++) {
      const started = Date.now();
      transcript.event('model_request', { turn, message_count: messages.length });
      let reply: ModelReply;
      try {
        reply = await callModel(opts, request, onRetry(turn));
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const status = err instanceof ModelApiError ? err.status : null;
        transcript.event('error', { turn, error, status });
        log(`[forge-agent] ${error}`);
        return { exitCode: 1, turns: turn, finalText: null, error };
      }
      const { message } = reply;
      messages.push(message);
      transcript.event('model_response', { turn, message, finish_reason: reply.finishReason, usage: reply.usage });

      const calls = message.tool_calls ?? [];
      if (calls.length === 0) {
        const finalText = message.content ?? '';
        transcript.event('final', { turn, text: finalText });
        log(`[forge-agent] turn ${turn}/${maxTurns}: final answer (${finalText.length} chars, ${Date.now() - started}ms)`);
        return { exitCode: 0, turns: turn, finalText };
      }

      for (const call of calls) {
        transcript.event('tool_call', { turn, id: call.id, name: call.function.name, arguments: call.function.arguments });
        const toolStarted = Date.now();
        const result = await executeTool(call, workdir, toolTimeoutSec);
        transcript.event('tool_result', { turn, id: call.id, name: call.function.name, content: result, duration_ms: Date.now() - toolStarted });
        messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
      log(`[forge-agent] turn ${turn}/${maxTurns}: ${calls.map((c) => c.function.name).join(', ')} (${Date.now() - started}ms)`);
    }
    const error = `max turns (${maxTurns}) reached without a final answer`;
    transcript.event('error', { turn: maxTurns, error });
    log(`[forge-agent] ${error}`);
    return { exitCode: 2, turns: maxTurns, finalText: null, error };
  } finally {
    transcript.close();
  }
}

// ---------------------------------------------------------------------------
// CLI

const USAGE = `usage: node forge-agent.mjs --instruction-file FILE [--max-turns 30] [--transcript /logs/agent/transcript.jsonl]
                          [--workdir /workspace] [--no-stream] [--tool-timeout-sec 120]
${MODEL_ENV_USAGE}`;

export function main(argv = process.argv.slice(2), env = process.env): Promise<number> {
  const own = { workdir: { type: 'string' }, 'no-stream': { type: 'boolean' }, 'tool-timeout-sec': { type: 'string' } } as const;
  const readOptions = (): AgentOptions | undefined =>
    readAgentOptions(argv, env, own, (flags) => ({
      workdir: flags.workdir ?? '/workspace',
      stream: !flags['no-stream'],
      toolTimeoutSec: positiveNumber(flags['tool-timeout-sec'], 'tool-timeout-sec', 120),
    }));
  return runAgentCommand('forge-agent', USAGE, readOptions, runAgent);
}

runIfEntryPoint(import.meta.url, 'forge-agent', () => main());
