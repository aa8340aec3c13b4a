import type { ChatBody, ChatLogprobs, ChatTokenLogprob, ChatUsage } from './chat-wire.js';

interface AssembledToolCall {
  id?: string;
  type: string;
  function: { name: string; arguments: string };
}

interface AssembledChoice {
  content: string | null;
  reasoning: { key: 'reasoning_content' | 'reasoning'; text: string } | null;
  toolCalls: Map<number, AssembledToolCall>;
  logprobs: ChatTokenLogprob[] | null;
  finishReason: string | null;
}

/** Builds the `chat.completion` a stream of `chat.completion.chunk`s adds up to. */
export class ChatCompletionAssembler {
  private id: string | undefined;
  private created: number | undefined;
  private model: string | undefined;
  private usage: ChatUsage | null = null;
  private readonly choices = new Map<number, AssembledChoice>();

  add(chunk: ChatBody): void {
    this.id ??= chunk.id;
    this.created ??= chunk.created;
    this.model ??= chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (typeof choice !== 'object' || choice === null) continue;
      const target = this.choice(choice.index ?? 0);
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') target.content = (target.content ?? '') + delta.content;
      for (const key of ['reasoning_content', 'reasoning'] as const) {
        const text = delta[key];
        if (typeof text === 'string') target.reasoning = { key, text: (target.reasoning?.text ?? '') + text };
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          const index = call.index ?? target.toolCalls.size;
          const existing = target.toolCalls.get(index);
          const assembled = existing ?? { type: 'function', function: { name: '', arguments: '' } };
          if (call.id) assembled.id = call.id;
          if (call.type) assembled.type = call.type;
          if (call.function?.name) assembled.function.name = call.function.name;
          if (call.function?.arguments) assembled.function.arguments += call.function.arguments;
          if (!existing) target.toolCalls.set(index, assembled);
        }
      }
      addLogprobs(target, choice.logprobs);
      if (choice.finish_reason) target.finishReason = choice.finish_reason;
    }
  }

  result(): ChatBody {
    const choices = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, choice]) => {
        const message: Record<string, unknown> = { role: 'assistant', content: choice.content };
        if (choice.reasoning) message[choice.reasoning.key] = choice.reasoning.text;
        if (choice.toolCalls.size > 0) {
          message.tool_calls = [...choice.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
        }
        return {
          index,
          message,
          logprobs: choice.logprobs ? { content: choice.logprobs } : null,
          finish_reason: choice.finishReason,
        };
      });
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices,
      usage: this.usage,
    };
  }

  private choice(index: number): AssembledChoice {
    let choice = this.choices.get(index);
    if (!choice) {
      choice = { content: null, reasoning: null, toolCalls: new Map(), logprobs: null, finishReason: null };
      this.choices.set(index, choice);
    }
    return choice;
  }
}

function addLogprobs(target: AssembledChoice, logprobs: ChatLogprobs | null | undefined): void {
  if (!Array.isArray(logprobs?.content)) return;
  (target.logprobs ??= []).push(...logprobs.content);
}
