import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChatMessage, ToolDefinition } from '../../../src/sim/chat-request.js';
import { renderCompletion, renderPrompt } from '../../../src/sim/chat-template.js';
import type { PolicyAnswer } from '../../../src/sim/policies/types.js';
import { STORE_FILE } from '../../../src/rollout/run.js';
import { Store } from '../../../src/store/store.js';
import type { CallLabel, RecordedCall } from '../../../src/records/call.js';

/**
 * Records calls into a real run store the way the recording proxy does with the sim upstream:
 * prompt ids from the sim's chat template over the request's messages and tools, completion ids
 * from rendering the answer, one logprob per completion token, the request as sent and the
 * chat.completion body as returned.
 */

export const BASH_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'Run a bash command.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
};

export function toolCall(command: string): PolicyAnswer {
  return { content: null, toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command }) }] };
}

export function finalAnswer(text: string): PolicyAnswer {
  return { content: text, toolCalls: [] };
}

/** The assistant message as the sim's chat.completion carries it (and as a harness echoes it back). */
export function assistantMessage(answer: PolicyAnswer, turn: number): ChatMessage {
  return {
    role: 'assistant',
    content: answer.content,
    ...(answer.reasoning ? { reasoning_content: answer.reasoning } : {}),
    ...(answer.toolCalls.length > 0
      ? {
          tool_calls: answer.toolCalls.map((c, i) => ({
            id: `call_${turn}_${i}`,
            type: 'function' as const,
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : {}),
  };
}

/** Deterministic, distinct logprobs so a misplaced one shows. */
export function logprobsFor(seq: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => -((seq * 1000 + i + 1) / 4096));
}

export class RecordedRun {
  private constructor(
    readonly dir: string,
    readonly store: Store,
    readonly runId: string,
  ) {}

  static async create(options: { upstream?: string; runId?: string; k?: number } = {}): Promise<RecordedRun> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-traj-'));
    const store = await Store.open(path.join(dir, STORE_FILE));
    const runId = options.runId ?? 'run-test';
    await store.createRun(runId, {
      hash: 'h',
      config: { harness: 'forge-agent', model: { upstream: options.upstream ?? 'sim:oracle' }, rollouts_per_task: options.k ?? 1, pass_threshold: 1 },
    });
    await store.setRunStatus(runId, 'finished');
    mkdirSync(path.join(dir, runId)); // the run's own folder, as executeRun makes it
    return new RecordedRun(dir, store, runId);
  }

  async rollout(taskId: string, sampleIndex: number, reward: number | null): Promise<RolloutRecorder> {
    const id = `${this.runId}.${taskId}.${sampleIndex}.1`;
    await this.store.addRollout({ id, runId: this.runId, taskId, sampleIndex, attempt: 1, harness: 'forge-agent' });
    await this.store.updateRollout(id, { status: reward === null ? 'error' : 'finished', reward });
    return new RolloutRecorder(this.store, id);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class RolloutRecorder {
  private seq = 0;

  constructor(
    private readonly store: Store,
    readonly id: string,
  ) {}

  /** A successful call with token ids; returns what was recorded. */
  async call(
    messages: ChatMessage[],
    answer: PolicyAnswer,
    options: { tools?: ToolDefinition[]; label?: CallLabel; model?: string; promptIds?: number[]; over?: Partial<RecordedCall> } = {},
  ): Promise<RecordedCall> {
    const seq = ++this.seq;
    const promptIds = options.promptIds ?? renderPrompt(messages, options.tools);
    const completionIds = renderCompletion(answer);
    const call: RecordedCall = {
      rolloutId: this.id,
      seq,
      label: options.label ?? 'policy',
      protocol: 'chat',
      model: options.model ?? 'policy',
      stream: false,
      request: { model: options.model ?? 'policy', messages, ...(options.tools ? { tools: options.tools } : {}) },
      response: {
        id: `chatcmpl-${seq}`,
        object: 'chat.completion',
        system_fingerprint: 'openforge-sim',
        choices: [
          {
            index: 0,
            message: { ...assistantMessage(answer, seq), reasoning_content: answer.reasoning ?? null },
            finish_reason: answer.toolCalls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
      },
      status: 200,
      error: null,
      promptTokenIds: promptIds,
      completionTokenIds: completionIds,
      logprobs: logprobsFor(seq, completionIds.length),
      finishReason: answer.toolCalls.length > 0 ? 'tool_calls' : 'stop',
      upstream: 'http://127.0.0.1:9/v1',
      startedAt: 1_700_000_000_000 + seq,
      ttfbMs: 1,
      durationMs: 2,
      missingTokenIds: false,
      ...options.over,
    };
    await this.store.recordCall(call);
    return call;
  }
}

/** A harness's chat history: it sends `messages` and appends each answer it gets and each tool result. */
export class ChatHistory {
  readonly messages: ChatMessage[];

  constructor(system: string, user: string) {
    this.messages = [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ];
  }

  snapshot(): ChatMessage[] {
    return structuredClone(this.messages);
  }

  answer(answer: PolicyAnswer, turn: number): void {
    this.messages.push(assistantMessage(answer, turn));
  }

  toolResult(content: string, turn: number): void {
    this.messages.push({ role: 'tool', tool_call_id: `call_${turn}_0`, content });
  }
}
