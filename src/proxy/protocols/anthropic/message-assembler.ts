import { toolInput } from './tool-input.js';
import type { AnthropicResponseMessage, AnthropicStreamEvent } from './wire.js';

/** Builds the message a stream of Anthropic events adds up to, as an SDK client would (what is recorded). */
export class AnthropicMessageAssembler {
  private message: AnthropicResponseMessage | null = null;
  /** Tool input JSON per block index, parsed when the block stops. */
  private readonly partialJson = new Map<number, string>();

  add(event: AnthropicStreamEvent): void {
    if (event.type === 'message_start') {
      this.message = { ...event.message, content: [], usage: { ...event.message.usage } };
      return;
    }
    const message = this.message;
    if (!message) return;
    switch (event.type) {
      case 'content_block_start':
        message.content[event.index] = { ...event.content_block };
        break;
      case 'content_block_delta': {
        const block = message.content[event.index];
        const { delta } = event;
        if (block?.type === 'text' && delta.type === 'text_delta') block.text += delta.text;
        if (block?.type === 'thinking' && delta.type === 'thinking_delta') block.thinking += delta.thinking;
        if (block?.type === 'thinking' && delta.type === 'signature_delta') block.signature = delta.signature;
        if (block?.type === 'tool_use' && delta.type === 'input_json_delta') {
          this.partialJson.set(event.index, (this.partialJson.get(event.index) ?? '') + delta.partial_json);
        }
        break;
      }
      case 'content_block_stop':
        this.parseToolInput(event.index);
        break;
      case 'message_delta':
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        message.usage.output_tokens = event.usage.output_tokens;
        if (event.usage.input_tokens !== undefined) message.usage.input_tokens = event.usage.input_tokens;
        break;
      case 'message_stop':
        break;
    }
  }

  /** The message so far; null when not even message_start was sent. */
  result(): AnthropicResponseMessage | null {
    for (const index of this.partialJson.keys()) this.parseToolInput(index);
    return this.message;
  }

  private parseToolInput(index: number): void {
    const block = this.message?.content[index];
    const json = this.partialJson.get(index);
    if (block?.type !== 'tool_use' || json === undefined) return;
    block.input = toolInput(json);
    this.partialJson.delete(index);
  }
}
