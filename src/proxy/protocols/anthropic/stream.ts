import type { ChatBody, ChatToolCallDelta } from '../../../engine-wire/chat-wire.js';
import { anthropicErrorBody } from './errors.js';
import { anthropicMessageId, anthropicToolUseId, ThinkingSignature } from './ids.js';
import { AnthropicMessageAssembler } from './message-assembler.js';
import { anthropicStop } from './stop-reason.js';
import { anthropicUsage, type AnthropicOutputBlock, type AnthropicStreamEvent } from './wire.js';
import type { SseEvent, StreamTranslator } from '../types.js';

type OpenBlock = { kind: 'thinking'; index: number; signature: ThinkingSignature } | { kind: 'text'; index: number } | { kind: 'tool'; index: number };

/**
 * Chat Completions chunks → Anthropic Messages events, as each chunk arrives: message_start on the
 * first chunk; a content block per run of reasoning, of text, and per tool call index (a block is
 * stopped when the next kind or tool call starts); message_delta (stop reason, usage) and
 * message_stop once the upstream is done, because the usage chunk comes after the finish chunk.
 */
export class AnthropicStreamTranslator implements StreamTranslator {
  private readonly assembler = new AnthropicMessageAssembler();
  private messageId: string | null = null;
  private open: OpenBlock | null = null;
  private nextIndex = 0;
  /** Upstream tool call index → content block index. */
  private readonly toolBlocks = new Map<number, number>();
  private finishReason: string | null = null;
  private engineStopReason: unknown = null;
  private inputTokens: number | undefined;
  private outputTokens = 0;

  constructor(private readonly model: string) {}

  push(chunk: ChatBody): SseEvent[] {
    const events: AnthropicStreamEvent[] = [];
    if (this.messageId === null) events.push(this.messageStart(chunk));
    if (chunk.usage) {
      if (typeof chunk.usage.prompt_tokens === 'number') this.inputTokens = chunk.usage.prompt_tokens;
      if (typeof chunk.usage.completion_tokens === 'number') this.outputTokens = chunk.usage.completion_tokens;
    }
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (choice) {
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning.length > 0) this.thinking(events, reasoning);
      if (typeof delta.content === 'string' && delta.content.length > 0) this.text(events, delta.content);
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.toolCall(events, call);
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        this.engineStopReason = choice.stop_reason;
        this.closeBlock(events);
      }
    }
    return this.emit(events);
  }

  end(): SseEvent[] {
    const events: AnthropicStreamEvent[] = [];
    if (this.messageId === null) events.push(this.messageStart({}));
    this.closeBlock(events);
    const usage: { output_tokens: number; input_tokens?: number } = { output_tokens: this.outputTokens };
    if (this.inputTokens !== undefined) usage.input_tokens = this.inputTokens;
    events.push(
      { type: 'message_delta', delta: anthropicStop(this.finishReason, this.engineStopReason, this.toolBlocks.size > 0), usage },
      { type: 'message_stop' },
    );
    return this.emit(events);
  }

  fail(message: string): SseEvent[] {
    return [{ event: 'error', data: JSON.stringify(anthropicErrorBody(message, 'api_error', 'upstream_stream_failed')) }];
  }

  assembled(): unknown {
    return this.assembler.result();
  }

  private messageStart(chunk: ChatBody): AnthropicStreamEvent {
    this.messageId = anthropicMessageId(chunk.id);
    this.inputTokens = Array.isArray(chunk.prompt_token_ids) ? chunk.prompt_token_ids.length : chunk.usage?.prompt_tokens;
    return {
      type: 'message_start',
      message: {
        id: this.messageId,
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(this.inputTokens ?? 0, 0),
      },
    };
  }

  private thinking(events: AnthropicStreamEvent[], text: string): void {
    let block = this.open;
    if (block?.kind !== 'thinking') {
      block = { kind: 'thinking', index: this.nextIndex++, signature: new ThinkingSignature() };
      this.openBlock(events, block, { type: 'thinking', thinking: '', signature: '' });
    }
    block.signature.add(text);
    events.push({ type: 'content_block_delta', index: block.index, delta: { type: 'thinking_delta', thinking: text } });
  }

  private text(events: AnthropicStreamEvent[], text: string): void {
    let block = this.open;
    if (block?.kind !== 'text') {
      block = { kind: 'text', index: this.nextIndex++ };
      this.openBlock(events, block, { type: 'text', text: '' });
    }
    events.push({ type: 'content_block_delta', index: block.index, delta: { type: 'text_delta', text } });
  }

  private toolCall(events: AnthropicStreamEvent[], call: ChatToolCallDelta): void {
    const toolIndex = call.index ?? 0;
    let index = this.toolBlocks.get(toolIndex);
    if (index === undefined) {
      index = this.nextIndex++;
      this.toolBlocks.set(toolIndex, index);
      const id = anthropicToolUseId(call.id, this.messageId ?? '', toolIndex);
      this.openBlock(events, { kind: 'tool', index }, { type: 'tool_use', id, name: call.function?.name ?? '', input: {} });
    }
    // a fragment for an earlier, already stopped call still goes to its own block (upstreams send calls in order)
    const fragment = call.function?.arguments;
    if (fragment) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } });
  }

  private openBlock(events: AnthropicStreamEvent[], block: OpenBlock, contentBlock: AnthropicOutputBlock): void {
    this.closeBlock(events);
    events.push({ type: 'content_block_start', index: block.index, content_block: contentBlock });
    this.open = block;
  }

  private closeBlock(events: AnthropicStreamEvent[]): void {
    const block = this.open;
    if (!block) return;
    if (block.kind === 'thinking') {
      const signature = block.signature.value();
      events.push({ type: 'content_block_delta', index: block.index, delta: { type: 'signature_delta', signature } });
    }
    events.push({ type: 'content_block_stop', index: block.index });
    this.open = null;
  }

  private emit(events: AnthropicStreamEvent[]): SseEvent[] {
    return events.map((event) => {
      this.assembler.add(event);
      return { event: event.type, data: JSON.stringify(event) };
    });
  }
}
