import type { ChatBody, ChatRequestBody } from '../../engine-wire/chat-wire.js';
import type { CallLabel, ClientView, ProtocolName } from '../../records/call.js';
import type { UpstreamAnswer } from '../upstream/upstream-pool.js';
import type { ChatEventCut } from './chat/event-cut.js';

/**
 * A wire protocol harnesses speak: the routes it serves and how its recorded calls read. The upstream
 * always speaks Chat Completions, so each endpoint translates the harness's request into a Chat
 * Completions request and the upstream's answer back; trajectory, inspector and fork read recorded
 * calls through `records` and never look at a protocol's shapes themselves.
 *
 * Adding a protocol: a folder under proxy/protocols/ exporting one of these, plus one line in `./registry.ts`.
 */
export interface Protocol {
  readonly name: ProtocolName;
  /** The model-call routes it serves under /v1. */
  readonly endpoints: readonly Endpoint[];
  readonly records: ProtocolRecords;
}

/**
 * One model-call route of a protocol. Token capture does not belong here: the proxy reads token ids
 * from the upstream's chunks itself, whatever the protocol.
 */
export interface Endpoint {
  /** The protocol's name, recorded with each call. */
  readonly name: ProtocolName;
  /** POST paths under /v1 it serves, e.g. '/chat/completions'. */
  readonly paths: readonly string[];
  /** Validates the harness's JSON body; throws a 400 `ProxyHttpError` naming the problem. */
  prepare(body: unknown): PreparedCall | LocalCall;
  /** The error body this protocol's clients parse. */
  errorBody(message: string, type: string, code: string | null): unknown;
}

/** What the model answered in one call, whatever the wire protocol: its text and its tool calls. */
export interface AnswerView {
  text: string;
  toolCalls: ToolCallView[];
}

/** One tool call of an answer, whatever the wire protocol. */
export interface ToolCallView {
  /** What the harness pairs the call's result with (a tool call id, `call_id`, a `tool_use` id); '' when the answer has none. */
  id: string;
  name: string;
  /** The arguments as JSON text; a freeform tool's raw input as it is. */
  arguments: string;
}

/** A tool's result as the harness sent it back to the model in a later request, whatever the wire protocol. */
export interface ToolResultView {
  /** The id of the tool call it answers. */
  callId: string;
  /** Its text, text parts joined (images left out). */
  output: string;
  /** What the protocol's own shape says about failure (Anthropic's `is_error`); undefined when it says nothing. */
  isError?: boolean;
}

/** Tokens an answer reports having read and written (its `usage`). */
export interface TokenUsage {
  prompt: number;
  completion: number;
}

/** A Chat Completions message, the form every protocol's translation goes through. */
export interface ChatLikeMessage {
  role: string;
  content?: unknown;
  reasoning_content?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** How a protocol's recorded requests and answers read, for the modules that only read records. */
export interface ProtocolRecords {
  /** The request's conversation in the protocol's own shapes, with its system prompt first when it has one. */
  requestMessages(request: unknown): unknown[];
  /** The messages a harness appends to its history for this answer; empty when the call failed. */
  answerMessages(response: unknown): unknown[];
  /** The answer's text and tool calls. */
  answerView(response: unknown): AnswerView;
  /** The tool results among the request's messages, in order (Chat `tool` messages, Responses `*_call_output` items, Anthropic `tool_result` blocks). */
  toolResults(request: unknown): ToolResultView[];
  /** The names of the tools the request offers the model, as its tool calls name them. */
  toolNames(request: unknown): string[];
  /** The token counts the answer reports, when it has a `usage`. */
  usage(response: unknown): TokenUsage | undefined;
  /** The request's own list of messages, whose positions image references count in (undefined: none). */
  messageList(request: unknown): unknown[] | undefined;
  /** The image a content part shows, as a URL (`data:` for inline bytes, `file:<id>` for an uploaded file), or undefined. */
  imageUrl(part: unknown): string | undefined;
  /** The recorded answer as the fork editor starts it: the protocol's own shape, without ids and statuses. */
  editableAnswer(response: unknown): unknown;
  /** What the answer of a recorded response is, in the shape `answerAsChat` reads; undefined when it holds none. */
  recordedAnswer(response: unknown): unknown;
  /**
   * An answer written in the protocol's own shape as Chat messages, or undefined when `raw` is not in that
   * shape (it is then read as a Chat assistant message). Throws a UserError naming what is wrong.
   */
  answerAsChat(raw: unknown, what: string, hint: string): ChatLikeMessage[] | undefined;
  /** How to write an answer for this protocol, for error messages and the fork editor. */
  readonly answerShape: string;
}

/** One validated harness request, with what the protocol needs to remember to answer it. */
export interface PreparedCall {
  /** Model name the harness asked for (recorded). */
  model: string;
  stream: boolean;
  label: CallLabel;
  /**
   * The Chat Completions request for the upstream, before the proxy adds its own fields
   * (return_token_ids, logprobs, stream_options, forced sampling). Must be a new object: the
   * harness's body is recorded as it was sent.
   */
  upstreamRequest: ChatRequestBody;
  /**
   * True when `upstreamRequest` holds the harness body's own fields, unchanged (Chat Completions):
   * the proxy then sends the harness's bytes upstream with its own fields set in front, instead of
   * serialising the request again.
   */
  upstreamRequestIsBody?: boolean;
  /** A whole upstream `chat.completion` → the body the harness receives (also what is recorded). */
  translateResponse(upstream: ChatBody): unknown;
  /**
   * What `translateResponse` would give, as JSON bytes cut from the upstream's answer without
   * parsing it, or undefined when the bytes do not read as expected (then the answer is parsed and
   * translated). Only a protocol whose answer is the upstream's minus some fields has it (Chat Completions).
   */
  answerFromBytes?(upstream: Buffer): Buffer | undefined;
  /** A translator for one streamed answer. */
  streamTranslator(): StreamTranslator;
  /**
   * Only a protocol whose streamed events are the upstream's minus some fields has it (Chat
   * Completions): the events are then cut from the upstream's text instead of parsed, and the record
   * reads the stream's tokens and response from the upstream's bytes later, off the serving thread.
   */
  streamCut?: StreamCut;
}

/** How a protocol cuts the harness's events from an upstream stream's text (see `PreparedCall.streamCut`). */
export interface StreamCut {
  /** One event's data cut for the harness, or undefined to have it parsed and given to the stream's translator. */
  event(data: string): ChatEventCut | undefined;
  /** What the harness asked to see, for the record's reading of the stream. */
  view: ClientView;
}

/** What answering a call needs from it once the upstream answers: the request itself is not needed by then. */
export type AnswerTranslator = Pick<PreparedCall, 'stream' | 'translateResponse' | 'answerFromBytes' | 'streamTranslator' | 'streamCut'>;

/**
 * A validated request that needs no generation (Anthropic count_tokens): the proxy answers 200 with
 * what `answerLocally` returns instead of forwarding a chat completion, and records no token ids.
 */
export interface LocalCall {
  model: string;
  stream: false;
  label: CallLabel;
  answerLocally(upstream: UpstreamAccess): Promise<unknown>;
}

/** The rollout's upstream, for a local call that wants to ask it something (e.g. vLLM's /tokenize). */
export interface UpstreamAccess {
  /** POSTs JSON to a path relative to the upstream's base URL (which ends in /v1/); retried like chat calls. */
  post(path: string, body: unknown): Promise<UpstreamAnswer>;
}

/** One server-sent event for the harness. `data` is written as one `data:` line. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Turns upstream chunks into the harness's SSE events, one chunk at a time, so that every event
 * is written as soon as its chunk arrives.
 */
export interface StreamTranslator {
  /** One parsed upstream chunk in; zero or more events out. */
  push(chunk: ChatBody): SseEvent[];
  /** The upstream finished normally. */
  end(): SseEvent[];
  /** The upstream failed after the stream had started; the stream ends after these events. */
  fail(message: string): SseEvent[];
  /** What the harness received, assembled into one final message (recorded). */
  assembled(): unknown;
}
