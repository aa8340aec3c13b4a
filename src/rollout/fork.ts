import path from 'node:path';
import { z } from 'zod';
import type { PolicyAnswer } from '../model/policies/types.js';
import { Store, type RolloutRecord } from '../store/store.js';
import type { RecordedCall } from '../store/types.js';
import { UserError } from '../util/errors.js';
import { loadEpisode, type Episode } from './episode.js';
import { recordedAnswers } from './model-endpoint.js';
import { executeRun, STORE_FILE } from './run.js';

/** An edited answer as the user writes it: an OpenAI Chat assistant message, as the inspector shows it. */
const AnswerSchema = z.object({
  role: z.literal('assistant').optional(),
  content: z.string().nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
  tool_calls: z
    .array(
      z.object({
        id: z.string().optional(),
        type: z.literal('function').optional(),
        function: z.object({ name: z.string().min(1), arguments: z.string() }),
      }),
    )
    .optional(),
});

/**
 * Checks an edited answer against the Chat protocol and the request it answers: JSON, the message
 * shape, tool names the request declares, tool arguments that are a JSON object encoded as a string.
 */
export function parseForkAnswer(text: string, request: unknown): PolicyAnswer {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UserError(`the edited answer is not valid JSON: ${(err as Error).message}`, 'write an assistant message such as {"content": "…", "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}}]}');
  }
  const parsed = AnswerSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
    throw new UserError(`the edited answer is not a valid assistant message: ${issues}`, 'content is a string or null; each tool call is {"type": "function", "function": {"name": …, "arguments": "<JSON text>"}}');
  }
  const message = parsed.data;
  const calls = message.tool_calls ?? [];
  if (!message.content && calls.length === 0) throw new UserError('the edited answer says nothing: give it content, tool_calls, or both');
  const tools = declaredTools(request);
  calls.forEach((call, i) => {
    const { name, arguments: args } = call.function;
    if (tools.length > 0 && !tools.includes(name)) throw new UserError(`tool call ${i + 1} names tool "${name}", which the request does not declare`, `declared tools: ${tools.join(', ')}`);
    let value: unknown;
    try {
      value = JSON.parse(args);
    } catch (err) {
      throw new UserError(`tool call ${i + 1} (${name}): arguments are not valid JSON text: ${(err as Error).message}`, 'arguments is a string holding a JSON object, e.g. "{\\"command\\": \\"ls\\"}"');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UserError(`tool call ${i + 1} (${name}): arguments must encode a JSON object, got ${JSON.stringify(value)}`);
  });
  return {
    content: message.content ?? null,
    ...(message.reasoning_content ? { reasoning: message.reasoning_content } : {}),
    toolCalls: calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
  };
}

function declaredTools(request: unknown): string[] {
  const tools = (request as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) => {
    const name = (t as { function?: { name?: unknown } })?.function?.name;
    return typeof name === 'string' ? [name] : [];
  });
}

export interface ForkOptions {
  /** Which call's answer to replace (its seq). */
  atSeq: number;
  /** The edited answer, as JSON text (a Chat assistant message). */
  answer: string;
  /** Who answers after the fork: a sim: spec; default the original run's (sim:oracle when that was a replay). */
  upstream?: string;
  signal?: AbortSignal;
  extraCaFile?: string;
  onLog?(line: string): void;
}

/**
 * Forks a recorded episode: replays its answers up to call `atSeq`, gives that call the edited answer,
 * lets the chosen upstream answer the rest. The fork is a new run in the same store, its rollout
 * linked to the original (parent, fork_seq).
 */
export async function forkRollout(outputDir: string, rolloutId: string, options: ForkOptions): Promise<{ fork: RolloutRecord; parent: RolloutRecord }> {
  const file = path.join(outputDir, STORE_FILE);
  let store = await Store.open(file);
  const { episode, prefix } = await planFork(store, outputDir, rolloutId, options.atSeq, options.answer).finally(() => store.close());
  const upstream = options.upstream ?? (episode.upstream.startsWith('sim:') && !episode.upstream.startsWith('sim:replay:') ? episode.upstream : 'sim:oracle');
  episode.loaded.config.model.upstream = upstream;
  const summary = await executeRun(episode.loaded, {
    fresh: true,
    parent: { rolloutId, kind: 'fork', atSeq: options.atSeq },
    prefixAnswers: prefix,
    signal: options.signal,
    extraCaFile: options.extraCaFile,
    onLog: options.onLog,
  });
  store = await Store.open(file);
  try {
    const [fork] = await store.currentRollouts(summary.runId);
    return { fork: fork!, parent: (await store.getRollout(rolloutId))! };
  } finally {
    await store.close();
  }
}

/**
 * Everything a fork needs, checked before anything runs: the episode, and the answers the first calls
 * get (the recorded ones before call `atSeq`, then the edited one). Throws a UserError naming the problem.
 */
export async function planFork(store: Store, outputDir: string, rolloutId: string, atSeq: number, answerText: string): Promise<{ episode: Episode; prefix: PolicyAnswer[] }> {
  const episode = await loadEpisode(store, outputDir, rolloutId);
  const calls = await store.listCalls(rolloutId);
  const target = calls.find((c) => c.seq === atSeq);
  if (!target) throw new UserError(`rollout ${rolloutId} has no call ${atSeq}`, calls.length ? `its calls are 1–${calls.length}` : 'it recorded no model calls');
  checkForkable(target);
  const answer = parseForkAnswer(answerText, target.request);
  const before = calls.filter((c) => c.seq < atSeq && c.label === 'policy' && c.status === 200).length;
  const prefix = before > 0 ? (await recordedAnswers(store, rolloutId)).slice(0, before) : [];
  prefix.push(answer);
  return { episode, prefix };
}

function checkForkable(call: RecordedCall): void {
  if (call.label !== 'policy') throw new UserError(`call ${call.seq} is a ${call.label} call: only policy calls can be forked`);
  if (call.protocol !== 'chat') throw new UserError(`call ${call.seq} speaks the ${call.protocol} protocol: forks take Chat Completions answers only for now`);
}
