import type { ChatBody } from '../../../engine-wire/chat-wire.js';
import { ChatCompletionAssembler } from '../../../engine-wire/chat-assembler.js';
import { stripEngineFields } from '../../../engine-wire/engine-fields.js';
import { openAIErrorBody } from '../../http/http-error.js';
import type { ChatClientWants } from './event-cut.js';
import type { SseEvent, StreamTranslator } from '../types.js';

/** Chat Completions in, Chat Completions out: strips what the harness did not ask for, chunk by chunk. */
export class ChatStreamTranslator implements StreamTranslator {
  private readonly assembler = new ChatCompletionAssembler();

  constructor(private readonly wants: ChatClientWants) {}

  push(chunk: ChatBody): SseEvent[] {
    stripEngineFields(chunk, { logprobs: this.wants.logprobs });
    this.assembler.add(chunk);
    if (!this.wants.usage) {
      const usageOnly = Array.isArray(chunk.choices) && chunk.choices.length === 0;
      if (usageOnly) return [];
      delete chunk.usage;
    }
    return [{ data: JSON.stringify(chunk) }];
  }

  end(): SseEvent[] {
    return [{ data: '[DONE]' }];
  }

  fail(message: string): SseEvent[] {
    return [{ data: JSON.stringify(openAIErrorBody(message, 'upstream_error', 'upstream_stream_failed')) }];
  }

  assembled(): unknown {
    return this.assembler.result();
  }
}
