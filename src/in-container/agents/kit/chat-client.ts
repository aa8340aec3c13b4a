import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { ChatCompletionAssembler } from '../../../engine-wire/chat-assembler.js';
import type { ChatBody } from '../../../engine-wire/chat-wire.js';

/** An OpenAI Chat Completions tool call, as the model sends it and the agent echoes it back. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ModelReply {
  message: AssistantMessage;
  finishReason: string | null;
  usage?: unknown;
}

/** Where and how an agent calls its model. */
export interface ChatClientOptions {
  /** e.g. http://host:port/s/<secret>/v1 */
  baseUrl: string;
  apiKey?: string;
  model?: string;
  temperature?: number;
  /** Retries of 429/5xx/connection errors per model call (default 4). */
  maxRetries?: number;
  /** First backoff delay (default 1 s); doubles on each retry unless Retry-After says otherwise. */
  retryBaseMs?: number;
}

/** The longest wait between two attempts, whatever Retry-After asks. */
const MAX_RETRY_DELAY_MS = 120_000;

export class ModelApiError extends Error {
  constructor(
    readonly status: number | null,
    readonly body: string,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(status === null ? `model API error: ${body}` : `model API HTTP ${status}: ${body}`);
  }
}

/** What a caller hears of each retry: its attempt number (from 1), the wait and the error. */
export type RetryListener = (retry: { attempt: number; of: number; delayMs: number; error: ModelApiError }) => void;

/**
 * One model call with retries: 429, 5xx and connection errors are tried again after a backoff that
 * doubles (or the server's Retry-After); any other error, or the last retry's, is thrown.
 */
export async function callModel(opts: ChatClientOptions, body: Record<string, unknown>, onRetry: RetryListener = () => {}): Promise<ModelReply> {
  const maxRetries = opts.maxRetries ?? 4;
  const retryBaseMs = opts.retryBaseMs ?? 1000;
  for (let attempt = 0; ; attempt++) {
    try {
      return await callModelOnce(opts, body);
    } catch (err) {
      if (!(err instanceof ModelApiError) || !err.retryable || attempt >= maxRetries) throw err;
      const delayMs = Math.min(err.retryAfterMs ?? retryBaseMs * 2 ** attempt, MAX_RETRY_DELAY_MS);
      onRetry({ attempt: attempt + 1, of: maxRetries, delayMs, error: err });
      await sleep(delayMs);
    }
  }
}

/** One attempt: `body` gets the model and temperature; `body.stream` says whether to ask for a stream. */
async function callModelOnce(opts: ChatClientOptions, request: Record<string, unknown>): Promise<ModelReply> {
  const body: Record<string, unknown> = { model: opts.model ?? 'policy', ...request };
  if (opts.temperature !== undefined) body.temperature = opts.temperature;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;

  let res: Response;
  try {
    res = await fetch(`${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    throw new ModelApiError(null, describeError(err), true);
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    const retryable = res.status === 429 || res.status >= 500;
    throw new ModelApiError(res.status, text.slice(0, 2000), retryable, parseRetryAfter(res.headers.get('retry-after')));
  }
  try {
    // Some servers ignore stream:true and answer with plain JSON.
    const isSse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
    if (body.stream === true && isSse && res.body) return await readStreamedReply(res.body);
    return parseWholeReply(await res.text());
  } catch (err) {
    if (err instanceof ModelApiError) throw err;
    throw new ModelApiError(null, `reading response: ${describeError(err)}`, true);
  }
}

/** fetch's "TypeError: fetch failed" hides the real reason in `cause`. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}

function parseRetryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** Assembles a streamed answer (the proxy's assembler: fragments joined in order), up to `[DONE]`. */
async function readStreamedReply(body: ReadableStream<Uint8Array>): Promise<ModelReply> {
  const assembler = new ChatCompletionAssembler();
  for await (const data of sseData(body)) {
    if (data.trim() === '[DONE]') break;
    let chunk: ChatBody;
    try {
      chunk = JSON.parse(data) as ChatBody;
    } catch {
      throw new ModelApiError(null, `malformed stream chunk: ${data.slice(0, 500)}`, true);
    }
    if (chunk.error) throw new ModelApiError(null, `error in stream: ${JSON.stringify(chunk.error)}`, true);
    assembler.add(chunk);
  }
  const assembled = assembler.result();
  const choice = assembled.choices?.[0];
  return reply(choice?.message ?? { content: null }, choice?.finish_reason ?? null, assembled.usage ?? undefined);
}

/** The data of each event of an SSE body; a last event that lacks its blank line still counts. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const events: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event.data) });
  const decoder = new TextDecoder();
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    yield* events.splice(0);
  }
  // a blank line ends the last event if the body did not
  parser.feed(`${decoder.decode()}\n\n`);
  yield* events.splice(0);
}

function parseWholeReply(text: string): ModelReply {
  let parsed: ChatBody;
  try {
    parsed = JSON.parse(text) as ChatBody;
  } catch {
    throw new ModelApiError(null, `response is not JSON: ${text.slice(0, 500)}`, true);
  }
  const choice = parsed.choices?.[0];
  if (!choice?.message) throw new ModelApiError(null, `response has no choices[0].message: ${text.slice(0, 500)}`, true);
  return reply(choice.message, choice.finish_reason ?? null, parsed.usage);
}

/** The assistant message the agent keeps (its text and tool calls; nothing else goes back to the model). */
function reply(message: { content?: unknown; tool_calls?: unknown }, finishReason: string | null, usage: unknown): ModelReply {
  const kept: AssistantMessage = { role: 'assistant', content: typeof message.content === 'string' ? message.content : null };
  const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as ToolCall[]) : [];
  if (toolCalls.length > 0) kept.tool_calls = toolCalls;
  return { message: kept, finishReason, usage };
}
